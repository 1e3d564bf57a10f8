package dev.pginbox.inbox;

import java.time.Instant;
import java.util.Objects;

/**
 * A message as stored in an inbox.
 *
 * @param payload the JSON payload as text, or null
 * @param seq arrival order assigned by the database
 * @param priority claim priority (lower first; 999 when unmapped)
 * @param bucket partition bucket of the aggregate id (see {@link Partitioning})
 */
public record InboxMessage(
    String eventId,
    String eventType,
    String source,
    String aggregateId,
    String payload,
    Instant receivedAt,
    Instant processedAt,
    String error,
    int retryCount,
    String traceId,
    long seq,
    int priority,
    int bucket) {

  public InboxMessage {
    Objects.requireNonNull(eventId, "eventId");
  }
}
