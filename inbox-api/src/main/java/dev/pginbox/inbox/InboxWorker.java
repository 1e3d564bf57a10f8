package dev.pginbox.inbox;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Consumes one inbox: claims batches, runs the handler in the batch's transaction, records the
 * outcomes and commits. Built by the implementation (e.g. {@code PostgresInboxWorker.builder}).
 */
public interface InboxWorker extends AutoCloseable {

  /** Starts the worker threads; returns at once. */
  void start();

  /**
   * Stops claiming, lets in-flight batches finish within the shutdown grace period, then rolls back
   * what remains. Returns once every thread and connection of the worker is released.
   */
  void stop();

  /**
   * Claims and handles at most one batch in the calling thread, whatever the batching rule says (an
   * inbox spread over shards: at most one from each shard); returns the number of messages claimed.
   * For tests and for callers with their own scheduling.
   */
  int runOnce();

  boolean isRunning();

  /**
   * Running, and the database is not refusing its work (see {@link
   * WorkerListener#onDatabaseRefused}): what a readiness or health check should report.
   */
  default boolean isHealthy() {
    return isRunning();
  }

  /** Waits until the worker has stopped (by {@link #stop()} or a fatal error); false on timeout. */
  boolean awaitTermination(Duration timeout) throws InterruptedException;

  /**
   * The partitions this worker holds now, with automatic partitions (see {@link
   * PartitionAssignment.Automatic}); empty otherwise, before the first heartbeat and after a stop.
   */
  default Set<Integer> heldPartitions() {
    return Set.of();
  }

  /** The error that stopped the worker, such as a {@link HandlerAbortException}. */
  Optional<Throwable> failure();

  @Override
  default void close() {
    stop();
  }
}
