package dev.pginbox.inbox.operations;

import dev.pginbox.inbox.InvalidInboxArgumentException;
import java.util.List;
import java.util.Objects;

/**
 * Which dead letters an operator action touches: given event ids, every dead letter of an event
 * type, or one group of {@link InboxOperations#dlqGroups} (event type and normalised error).
 * Messages that are not dead letters are never touched, whatever the selection.
 *
 * @param eventIds the ids, or null
 * @param eventType the event type (null matches messages without one), when not by ids
 * @param errorGroup the normalised error of a group, or null for the whole event type
 */
public record DeadLetterSelection(List<String> eventIds, String eventType, String errorGroup) {

  /** At most this many ids at once (the SQL API's limit). */
  public static final int MAX_IDS = 100_000;

  public DeadLetterSelection {
    if (eventIds != null) {
      eventIds = List.copyOf(eventIds);
      if (eventType != null || errorGroup != null) {
        throw new InvalidInboxArgumentException(
            "select dead letters by event ids, or by event type and error group, not both", null);
      }
      if (eventIds.size() > MAX_IDS) {
        throw new InvalidInboxArgumentException(
            "at most " + MAX_IDS + " event ids at once, got " + eventIds.size(), null);
      }
    }
  }

  public static DeadLetterSelection ids(List<String> eventIds) {
    return new DeadLetterSelection(Objects.requireNonNull(eventIds, "eventIds"), null, null);
  }

  public static DeadLetterSelection eventType(String eventType) {
    return new DeadLetterSelection(null, eventType, null);
  }

  public static DeadLetterSelection group(String eventType, String errorGroup) {
    return new DeadLetterSelection(
        null, eventType, Objects.requireNonNull(errorGroup, "errorGroup"));
  }

  public boolean byIds() {
    return eventIds != null;
  }
}
