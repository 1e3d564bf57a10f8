package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One message in full, whatever its state ({@code inbox.inbox_message}).
 *
 * @param state {@code pending}, {@code processed} or {@code dead}
 * @param payload the JSON payload as text, or null
 * @param nextAttemptAt when a failed message may be claimed again, or null
 * @param failingSince its first failure since it last waited clean (arrival or replay), or null
 * @param diedAt when it became a dead letter (kept once processed, cleared by a replay), or null
 * @param attempts its last {@value FailedAttempt#KEPT} failed attempts, oldest first; empty when it
 *     never failed (or failed only before the inbox recorded attempts)
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
    String traceId,
    Instant failingSince,
    Instant diedAt,
    List<FailedAttempt> attempts) {

  public MessageDetail {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(state, "state");
    attempts = List.copyOf(attempts);
  }
}
