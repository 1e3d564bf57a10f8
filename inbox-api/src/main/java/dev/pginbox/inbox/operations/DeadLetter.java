package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.Objects;

/**
 * One row of a dead-letter page ({@code inbox.inbox_dead_letters}); the payload is left out, see
 * {@link InboxOperations#message} for a message in full.
 *
 * @param error the error, cut to 500 characters
 */
public record DeadLetter(
    String eventId,
    String eventType,
    String aggregateId,
    Instant receivedAt,
    String error,
    int retryCount,
    String traceId) {

  public DeadLetter {
    Objects.requireNonNull(eventId, "eventId");
  }
}
