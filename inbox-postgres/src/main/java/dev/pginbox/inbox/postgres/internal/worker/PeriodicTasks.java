package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.internal.worker.membership.LeaseKeeper;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The periodic work of one run, off the hot path: gauges and retention on the maintenance thread,
 * and in the automatic partition mode the lease heartbeat on a thread of its own (a slow sweep must
 * not delay a heartbeat past the lease).
 */
final class PeriodicTasks {

  /** How often a worker sharing every head reads its peers ({@code inbox.worker_peers}). */
  static final long PEERS_INTERVAL_MILLIS = 1_000;

  private final WorkerContext ctx;
  private final Threads threads;
  private final Runnable onLeaseChange;
  private ScheduledExecutorService maintenance;
  private Maintenance maintenanceTask;
  private ScheduledExecutorService leases;
  private LeaseKeeper leaseKeeper;

  PeriodicTasks(WorkerContext ctx, Threads threads, Runnable onLeaseChange) {
    this.ctx = ctx;
    this.threads = threads;
    this.onLeaseChange = onLeaseChange;
  }

  void start() {
    if (ctx.options().partitions() instanceof PartitionAssignment.Automatic automatic) {
      leaseKeeper =
          new LeaseKeeper(
              ctx.jdbi(),
              ctx.inbox(),
              ctx.config().workerId(),
              ctx.scope(),
              ctx.events(),
              automatic,
              onLeaseChange);
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(1, threads.factory("leases"));
      // The keeper schedules each heartbeat itself: at stop the next one is dropped, not awaited.
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      leases = executor;
      leaseKeeper.start(leases);
    }
    maintenanceTask = new Maintenance(ctx);
    maintenance = Executors.newSingleThreadScheduledExecutor(threads.factory("maintenance"));
    long gauges = ctx.config().gaugeInterval().toMillis();
    maintenance.scheduleWithFixedDelay(
        maintenanceTask::refreshGauges, 0, gauges, TimeUnit.MILLISECONDS);
    if (ctx.options().partitions() instanceof PartitionAssignment.All) {
      // A worker sharing every head learns of a peer that started or stopped within a second.
      long peers = Math.min(gauges, PEERS_INTERVAL_MILLIS);
      maintenance.scheduleWithFixedDelay(
          maintenanceTask::refreshPeers, peers, peers, TimeUnit.MILLISECONDS);
    }
    if (ctx.options().retention()) {
      long retention = ctx.config().retentionInterval().toMillis();
      maintenance.scheduleWithFixedDelay(
          maintenanceTask::sweep, Math.min(retention, 1000), retention, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A notification on the inbox's lease channel (the workers changed, partitions came free): in the
   * automatic partition mode, heartbeat now.
   */
  void leasesChanged() {
    if (leaseKeeper != null) {
      leaseKeeper.leasesChanged();
    }
  }

  /** Schedules nothing more; a task running now finishes. */
  void stopScheduling() {
    if (leases != null) {
      leases.shutdown();
    }
    maintenance.shutdown();
  }

  /**
   * Waits for the running tasks until the deadline, closes the connections, gives the leases back.
   * A maintenance task still running then (waiting for an answer that does not come) has its
   * connection cut instead of the stop queueing behind it on that connection; the worker's registry
   * row then shows it stale after three gauge intervals instead of stopped.
   */
  void finish(long deadlineNanos) {
    Threads.awaitQuietly(maintenance, deadlineNanos);
    if (maintenance.isTerminated()) {
      maintenanceTask.announceStopped();
      maintenanceTask.close();
    } else {
      maintenanceTask.abort();
    }
    if (leases != null) {
      Threads.awaitQuietly(leases, deadlineNanos);
      leaseKeeper.leave();
    }
  }
}
