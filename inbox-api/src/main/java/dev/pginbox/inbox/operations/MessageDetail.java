package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.Objects;

/**
 * One message in full, whatever its state ({@code inbox.inbox_message}).
 *
 * @param state {@code pending}, {@code processed} or {@code dead}
 * @param payload the JSON payload as text, or null
 * @param nextAttemptAt when a failed message may be claimed again (managed inboxes), or null
 */
public record MessageDetail(
    String eventId,
    String state,
    String eventType,
    String source,
    String aggregateId,
    String payload,
    Instant receivedAt,
    Instant processedAt,
    Instant nextAttemptAt,
    String error,
    int retryCount,
    String traceId) {

  public MessageDetail {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(state, "state");
  }
}
