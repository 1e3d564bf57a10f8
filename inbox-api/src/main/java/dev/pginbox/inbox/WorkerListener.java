package dev.pginbox.inbox;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Observes what an {@link InboxWorker} does, wake-ups, batches, connection changes, so that an
 * application can log them in the words its operators know, or feed its own monitoring. Every
 * method has a no-op default; they run on the worker's own threads, so keep them quick and do not
 * throw (an exception is logged and ignored).
 */
public interface WorkerListener {

  /** Why the worker looked for waiting messages. */
  enum WakeUpCause {
    /** A notification arrived on the LISTEN channel. */
    NOTIFY,
    /** The poll interval passed without a notification (also the only cause in poll-only mode). */
    POLL,
    /** The batch timeout of messages already seen ran out. */
    TIMEOUT,
    /** The worker (re)connected: notifications sent meanwhile are lost, so it looks at once. */
    CONNECTED
  }

  /**
   * Why a batch was dispatched (the original collector's {@code (max reached)} / {@code
   * (timeout)}).
   */
  enum DispatchReason {
    /** At least a full batch was waiting. */
    MAX_REACHED,
    /** Fewer than a batch waited for the batch timeout (or the timeout is zero). */
    TIMEOUT,
    /** {@link InboxWorker#runOnce()}. */
    MANUAL
  }

  WorkerListener NONE = new WorkerListener() {};

  default void onWakeUp(WakeUpCause cause) {}

  /**
   * A batch of {@code count} messages was claimed and goes to the handler (never called with 0).
   */
  default void onDispatch(int count, DispatchReason reason) {}

  /** The transaction of a batch of {@code count} claimed messages committed. */
  default void onBatchCommitted(int count) {}

  /** The worker's connections are up again (also on first start). */
  default void onConnected() {}

  /** A connection failed; the worker retries after {@code retryIn} (capped exponential backoff). */
  default void onConnectionLost(Throwable error, Duration retryIn) {}

  /**
   * A processor's connection failed (not the LISTEN connection: see {@link #onConnectionLost}); the
   * processor retries after {@code retryIn}. Its batch, if any, was rolled back and charges no one.
   */
  default void onProcessorConnectionLost(Throwable error, Duration retryIn) {}

  /**
   * A connection of the worker reached a standby (read-only, in recovery), during a failover or
   * through a URL that points at one. The worker closes it and connects again every {@code retryIn}
   * until it finds a primary, then calls {@link #onConnected()}. Called once per such episode, not
   * per attempt. By default it is reported as {@link #onConnectionLost}, so that a readiness check
   * fed by this listener reports the worker as not ready meanwhile.
   */
  default void onStandby(Throwable error, Duration retryIn) {
    onConnectionLost(error, retryIn);
  }

  /**
   * A batch was taken away at the processing timeout while the handler was working on {@code
   * eventIds} (the whole batch); the messages are recorded as the worker's rules say.
   */
  default void onProcessingTimeout(List<String> eventIds) {}

  /**
   * With automatic partitions: the worker now holds {@code held} (partition numbers, 0 to {@code
   * partitions - 1}), after gaining or losing some.
   */
  default void onPartitionsChanged(Set<Integer> held, int partitions) {}

  /**
   * Without partitions: the worker's place among the live workers of the inbox that spread over the
   * buckets changed ({@code inbox.worker_peers}, read every second): it is {@code rank} (0 to
   * {@code peers - 1}) of {@code peers}, and on an ordered inbox with two or more it claims the
   * buckets of that partition first; {@code rank} -1 when the registry does not list it yet.
   */
  default void onPeersChanged(int rank, int peers) {}

  /**
   * The database refused the worker's work for a reason that is not the messages' fault: missing
   * privileges (SQLSTATE 42501), a missing table, column or function (42P01, 42703, 42883), a
   * read-only database (25006), a configuration or resource error (classes F0, 53, 58). Nothing is
   * charged to any message, they stay pending, and the worker retries after {@code retryIn}. Called
   * once per episode (and again if the SQLSTATE changes); {@link #onDatabaseRecovered()} ends it.
   * Meanwhile {@link InboxWorker#isHealthy()} is false.
   */
  default void onDatabaseRefused(String sqlState, Throwable error, Duration retryIn) {}

  /** The work the database refused succeeds again. */
  default void onDatabaseRecovered() {}
}
