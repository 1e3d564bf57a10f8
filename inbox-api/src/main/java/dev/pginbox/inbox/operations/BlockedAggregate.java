package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * An aggregate of an ordered inbox whose head (earliest unprocessed message) cannot be claimed now
 * ({@code inbox.inbox_blocked_aggregates}).
 *
 * @param blockedUntil the head's next attempt, for {@link Reason#BACKING_OFF}; else null
 * @param claimedByPid the database backend holding the head, for {@link Reason#CLAIMED}; else null
 * @param claimedBy that backend's application name, when visible; else null
 * @param waitingBehind unprocessed messages queued behind the head (exact up to 100,000)
 * @param blockedSince when the head became the blocker: when it died ({@link Reason#DEAD_LETTER}),
 *     its first failure of the run that keeps it backing off ({@link Reason#BACKING_OFF}), or the
 *     start of the claiming transaction ({@link Reason#CLAIMED}, when the database shows it); null
 *     when unknown
 */
public record BlockedAggregate(
    String aggregateId,
    Reason reason,
    String eventId,
    String eventType,
    String error,
    int retryCount,
    Instant blockedUntil,
    Integer claimedByPid,
    String claimedBy,
    long waitingBehind,
    Instant headReceivedAt,
    Instant blockedSince) {

  public BlockedAggregate {
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(eventId, "eventId");
  }

  /** Why the head cannot be claimed. */
  public enum Reason {
    /** The head is a dead letter: replay or discard it. */
    DEAD_LETTER,
    /** The head failed and waits for its next attempt. */
    BACKING_OFF,
    /** A running transaction holds the head (a worker is processing it, or hangs). */
    CLAIMED;

    /** The reason of the SQL result ({@code 'dead_letter'}, ...). */
    public static Reason fromSql(String value) {
      return valueOf(value.toUpperCase(Locale.ROOT));
    }
  }
}
