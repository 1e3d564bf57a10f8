package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A worker of an inbox, live or recently gone ({@code inbox.inbox_workers}).
 *
 * @param assignment {@code all}, {@code static} or {@code automatic}; null when unknown
 * @param concurrency how many batches it handles at once; null when unknown
 * @param claimAhead whether it claims its next batch while a handler runs; null when unknown
 * @param partitionsHeld partitions whose lease it holds now (automatic mode)
 * @param leaseExpiresAt the earliest expiry of those leases, or null
 */
public record WorkerInfo(
    String workerId,
    State state,
    String host,
    Long pid,
    String applicationName,
    String assignment,
    Integer concurrency,
    Boolean claimAhead,
    List<Integer> partitionsHeld,
    Instant leaseExpiresAt,
    Instant lastHeartbeat,
    Instant startedAt,
    Instant stoppedAt) {

  public WorkerInfo {
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(state, "state");
    partitionsHeld = List.copyOf(partitionsHeld);
  }

  public enum State {
    /** Announced itself within the last minute. */
    LIVE,
    /** No announcement for more than a minute: crashed, hung or cut off. */
    SILENT,
    /** Stopped in an orderly way. */
    STOPPED;

    public static State fromSql(String value) {
      return valueOf(value.toUpperCase(Locale.ROOT));
    }
  }
}
