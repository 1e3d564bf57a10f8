package dev.pginbox.inbox.operations;

import java.util.List;
import java.util.Objects;

/**
 * Which dead letters an operator action touches: given event ids, every dead letter of an event
 * type, or one group of {@link InboxOperations#dlqGroups} (event type and normalised error).
 * Messages that are not dead letters are never touched, whatever the selection.
 *
 * <p>A selection is checked when it is made, with the JDK's {@link IllegalArgumentException}: this
 * package holds the operator's values and depends on nothing of {@code dev.pginbox.inbox}, which
 * hands it out ({@code Inbox.operations()}).
 *
 * @param eventIds the ids, or null
 * @param eventType the event type (null matches messages without one), when not by ids
 * @param errorGroup the normalised error of a group, or null for the whole event type
 */
public record DeadLetterSelection(List<String> eventIds, String eventType, String errorGroup) {

  /** At most this many ids at once (the SQL API's limit). */
  public static final int MAX_IDS = 100_000;

  /**
   * @throws IllegalArgumentException with ids and an event type or group, or more than {@link
   *     #MAX_IDS} ids
   */
  public DeadLetterSelection {
    if (eventIds != null) {
      eventIds = List.copyOf(eventIds);
      if (eventType != null || errorGroup != null) {
        throw new IllegalArgumentException(
            "select dead letters by event ids, or by event type and error group, not both");
      }
      if (eventIds.size() > MAX_IDS) {
        throw new IllegalArgumentException(
            "at most " + MAX_IDS + " event ids at once, got " + eventIds.size());
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
