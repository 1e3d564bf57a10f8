package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.operations.DeadLetterSelection;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a replay through the {@code inbox} endpoint selects: event ids or one event type, read from
 * the request's {@code eventIds} and {@code eventType}.
 *
 * <p>Actuator hands a write operation every JSON value as a string. {@code eventIds} arrives as the
 * JSON text of an array ({@code ["e1","e2"]}, what {@link InboxEndpointBodyAdvice} makes of the
 * documented request), or in the older forms a single id ({@code "e1"}) or ids separated by commas
 * ({@code "e1,e2"}).
 *
 * @param eventIds the ids to replay, or null for a replay by type
 * @param eventType the event type to replay, or null for a replay by ids
 */
record ReplaySelection(@Nullable List<String> eventIds, @Nullable String eventType) {

  static final String EXAMPLE = "{\"eventIds\": [\"e1\"]} or {\"eventType\": \"t\"}";

  /** A request the endpoint refuses, with the reason its answer gives. */
  static final class InvalidReplayRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InvalidReplayRequest(String reason) {
      super(reason);
    }
  }

  /**
   * @throws InvalidReplayRequest unless exactly one of the two is given and well formed
   */
  static ReplaySelection of(
      @Nullable String eventIds, @Nullable String eventType, PayloadCodec codec) {
    if (eventIds == null && eventType == null) {
      throw new InvalidReplayRequest("give eventIds or eventType: " + EXAMPLE);
    }
    if (eventIds != null && eventType != null) {
      throw new InvalidReplayRequest(
          "give exactly one of eventIds and eventType, not both: " + EXAMPLE);
    }
    if (eventType != null) {
      if (eventType.isBlank()) {
        throw new InvalidReplayRequest("eventType is blank: " + EXAMPLE);
      }
      return new ReplaySelection(null, eventType);
    }
    List<String> ids =
        eventIds.stripLeading().startsWith("[") ? fromJsonArray(eventIds, codec) : split(eventIds);
    if (ids.isEmpty()) {
      throw new InvalidReplayRequest("eventIds is empty: " + EXAMPLE);
    }
    if (ids.size() > DeadLetterSelection.MAX_IDS) {
      throw new InvalidReplayRequest(
          "at most " + DeadLetterSelection.MAX_IDS + " eventIds at once, got " + ids.size());
    }
    return new ReplaySelection(List.copyOf(ids), null);
  }

  private static List<String> fromJsonArray(String json, PayloadCodec codec) {
    Object parsed;
    try {
      parsed = codec.read(json, List.class);
    } catch (IllegalArgumentException e) {
      throw new InvalidReplayRequest("eventIds is not a JSON array of event ids: " + EXAMPLE);
    }
    List<String> ids = new ArrayList<>();
    for (Object id : (List<?>) parsed) {
      if (!(id instanceof String s) || s.isBlank()) {
        throw new InvalidReplayRequest(
            "eventIds holds " + (id == null ? "null" : "'" + id + "'") + ", not an event id");
      }
      ids.add(s);
    }
    return ids;
  }

  /** The older form: ids separated by commas, each trimmed (what Spring's conversion did). */
  private static List<String> split(String eventIds) {
    List<String> ids = new ArrayList<>();
    for (String id : eventIds.split(",", -1)) {
      if (id.isBlank()) {
        throw new InvalidReplayRequest("eventIds holds an empty event id: " + EXAMPLE);
      }
      ids.add(id.strip());
    }
    return ids;
  }
}
