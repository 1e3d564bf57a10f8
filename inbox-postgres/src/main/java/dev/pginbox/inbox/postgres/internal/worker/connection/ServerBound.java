package dev.pginbox.inbox.postgres.internal.worker.connection;

import java.time.Duration;

/**
 * The server-side bound of a claim transaction: {@code idle_in_transaction_session_timeout} and
 * {@code statement_timeout}, set locally by the claim statement itself. The in-JVM watchdog ends a
 * batch at the processing timeout; this bound is the safety net for when it cannot (a frozen or
 * partitioned JVM, a stall before the watchdog is armed, {@code runOnce()}), so it lies a margin
 * beyond: half the processing timeout, at least 1 s (the watchdog must win the race) and at most 30
 * s.
 */
public final class ServerBound {

  private static final Duration MIN_MARGIN = Duration.ofSeconds(1);
  private static final Duration MAX_MARGIN = Duration.ofSeconds(30);

  private ServerBound() {}

  public static Duration of(Duration processingTimeout) {
    Duration margin = processingTimeout.dividedBy(2);
    if (margin.compareTo(MIN_MARGIN) < 0) {
      margin = MIN_MARGIN;
    } else if (margin.compareTo(MAX_MARGIN) > 0) {
      margin = MAX_MARGIN;
    }
    return processingTimeout.plus(margin);
  }

  /**
   * How long a processor's own connection waits for any answer (its socket's read timeout): past
   * the server's bound, by the time a short statement may take. Only a half-open connection, whose
   * answers are lost, gets there.
   */
  static Duration answer(Duration processingTimeout) {
    return of(processingTimeout).plus(WorkerConnection.SHORT_ANSWER);
  }

  /**
   * The bound as a PostgreSQL setting value in milliseconds (the settings hold an int; capped
   * there).
   */
  public static String millis(Duration processingTimeout) {
    Duration bound = of(processingTimeout);
    long ms =
        bound.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) >= 0
            ? Integer.MAX_VALUE
            : bound.toMillis();
    return Long.toString(ms);
  }
}
