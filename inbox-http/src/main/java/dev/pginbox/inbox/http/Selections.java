package dev.pginbox.inbox.http;

import dev.pginbox.inbox.operations.DeadLetterSelection;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A dead-letter selection in a form: {@code by} = ids (repeated {@code id} fields), type ({@code
 * event_type}) or group ({@code event_type}, {@code error_group}). An absent {@code event_type}
 * means messages without a type.
 */
final class Selections {

  /** One page of checkboxes, or a few pages: a form never carries more. */
  static final int MAX_FORM_IDS = 1000;

  private Selections() {}

  static String hiddenFields(DeadLetterSelection s) {
    if (s.byIds()) {
      StringBuilder f = new StringBuilder(Html.hidden("by", "ids"));
      s.eventIds().forEach(id -> f.append(Html.hidden("id", id)));
      return f.toString();
    }
    return Html.hidden("by", s.errorGroup() == null ? "type" : "group")
        + Html.hidden("event_type", s.eventType())
        + Html.hidden("error_group", s.errorGroup());
  }

  static DeadLetterSelection fromForm(Map<String, String> form) {
    String by = form.getOrDefault("by", "");
    switch (by) {
      case "ids" -> {
        String ids = form.get("id");
        if (ids == null || ids.isEmpty()) {
          throw new Exchanges.BadRequest("select at least one message");
        }
        List<String> list = Arrays.asList(ids.split("\n"));
        if (list.size() > MAX_FORM_IDS) {
          throw new Exchanges.BadRequest("at most " + MAX_FORM_IDS + " messages per form");
        }
        return DeadLetterSelection.ids(list);
      }
      case "type" -> {
        return DeadLetterSelection.eventType(form.get("event_type"));
      }
      case "group" -> {
        String group = form.get("error_group");
        if (group == null) {
          throw new Exchanges.BadRequest("error_group is missing");
        }
        return DeadLetterSelection.group(form.get("event_type"), group);
      }
      default -> throw new Exchanges.BadRequest("by must be ids, type or group");
    }
  }

  static String describe(DeadLetterSelection s) {
    if (s.byIds()) {
      return s.eventIds().size() + " selected message(s)";
    }
    return "dead letters of type "
        + (s.eventType() == null ? "(none)" : s.eventType())
        + (s.errorGroup() == null ? "" : " with error \"" + s.errorGroup() + "\"");
  }
}
