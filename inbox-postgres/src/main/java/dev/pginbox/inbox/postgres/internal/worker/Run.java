package dev.pginbox.inbox.postgres.internal.worker;

/**
 * One start..stop of a worker, as {@link PostgresWorker} sees it: {@link RunningWorker} on a single
 * server, {@link ShardRun} on a distributed inbox, {@link PendingRun} (one of those two once the
 * database answers) when it did not answer at start.
 */
interface Run {

  /** True for the one caller that gets to stop this run. */
  boolean beginStop();

  /** True once stop began. */
  boolean stopRequested();

  /**
   * Stops claiming, lets the batches in hand end within the grace period, waits for the threads.
   */
  void shutdown();

  /** The partitions this run holds now (automatic mode; on a distributed inbox the shards). */
  int[] heldPartitions();
}
