package dev.pginbox.inbox;

import java.util.Objects;

/**
 * A message to write into an inbox. Writing is idempotent by {@code eventId}: a second write of the
 * same id is ignored.
 *
 * @param payload JSON text, or null
 */
public record NewMessage(
    String eventId,
    String eventType,
    String source,
    String aggregateId,
    String payload,
    String traceId) {

  public NewMessage {
    Objects.requireNonNull(eventId, "eventId");
    if (eventId.isEmpty()) {
      throw new InvalidInboxArgumentException("eventId must not be empty", null);
    }
  }

  public static NewMessage of(
      String eventId, String eventType, String aggregateId, String payload) {
    return new NewMessage(eventId, eventType, null, aggregateId, payload, null);
  }
}
