package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.internal.worker.batch.TimeoutRecovery;
import dev.pginbox.inbox.postgres.internal.worker.connection.ShardNodes;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import dev.pginbox.inbox.postgres.internal.worker.membership.ShardMap;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One start..stop of a worker on a distributed (Citus) inbox: the shards thread (heartbeat and
 * where the shards are, {@link ShardMap}), the processors ({@link ShardProcessor}, one per unit of
 * concurrency, each replaced when its batch passes the processing timeout), the {@link Watchdog} of
 * that timeout, and the maintenance thread (gauges, the worker registry, retention), all taken down
 * again at stop. Poll only: no LISTEN connection, no batching rule; {@link #check} refuses the
 * options that need what this path does not have.
 */
final class ShardRun extends RunState {

  private static final Logger LOG = LoggerFactory.getLogger(ShardRun.class);

  /** After the grace period, how long stop waits for the processors whose connections it cut. */
  private static final Duration ABORT_WAIT = Duration.ofSeconds(5);

  private final WorkerContext ctx;
  private final Threads threads;
  private final ShardNodes nodes;
  private final ShardMap map;
  private final Maintenance maintenance;
  private final Watchdog watchdog;
  private final List<ShardProcessor> processors = new CopyOnWriteArrayList<>();
  private ScheduledExecutorService shardsThread;
  private ScheduledExecutorService maintenanceThread;

  /** Checks the options ({@link #check}) and how to reach the nodes; runs nothing yet. */
  ShardRun(WorkerContext ctx, Consumer<Throwable> onFatal) {
    super(onFatal);
    check(ctx.options(), ctx.given().boundary() != null);
    // A shard's claim takes the whole shard visited: the batch core's scope is every bucket.
    this.ctx =
        ctx.withScope(
            new ClaimScope(new PartitionAssignment.All(), ctx.inbox(), ctx.config().workerId()));
    this.nodes =
        ShardNodes.of(ctx.given().nodeDataSources(), ctx.given().dataSource(), ctx.inbox());
    this.threads = new Threads(ctx.inbox());
    this.map =
        new ShardMap(
            ctx.jdbi(), ctx.inbox(), ctx.config().workerId(), ctx.events(), lease(ctx.options()));
    this.maintenance = new Maintenance(ctx);
    this.watchdog = new Watchdog(threads.factory("watchdog"), ctx.options().processingTimeout());
  }

  /**
   * Refuses what a shard's claim cannot do (docs/scale-out.md): a transaction boundary (the batch's
   * transaction is on a worker node, the application's on the coordinator), claim ahead, several
   * messages of an aggregate per batch, a static partition (the shards are the partitions). The
   * options it ignores are listed there.
   */
  static void check(WorkerOptions options, boolean boundary) {
    String refused =
        boundary
            ? "a transaction boundary"
            : options.claimAhead()
                ? "claimAhead"
                : options.messagesPerAggregate() > 1
                    ? "messagesPerAggregate > 1"
                    : options.partitions() instanceof PartitionAssignment.Static
                        ? "a static partition"
                        : null;
    if (refused != null) {
      throw new InvalidInboxArgumentException(
          "inbox "
              + options.inbox()
              + " is distributed: its worker claims shard by shard, without "
              + refused
              + " (docs/scale-out.md, \"Workers, shard by shard\")",
          options.inbox());
    }
  }

  /** The lease of the shards: an automatic assignment's, the default one otherwise. */
  private static Duration lease(WorkerOptions options) {
    return options.partitions() instanceof PartitionAssignment.Automatic a
        ? a.leaseDuration()
        : PartitionAssignment.Automatic.DEFAULT_LEASE;
  }

  void start() {
    ctx.events().registerGauges();
    shardsThread = Executors.newSingleThreadScheduledExecutor(threads.factory("shards"));
    shardsThread.scheduleWithFixedDelay(
        map::refresh, 0, map.period().toMillis(), TimeUnit.MILLISECONDS);
    maintenanceThread = Executors.newSingleThreadScheduledExecutor(threads.factory("maintenance"));
    long gauges = ctx.config().gaugeInterval().toMillis();
    maintenanceThread.scheduleWithFixedDelay(
        maintenance::refreshGauges, 0, gauges, TimeUnit.MILLISECONDS);
    if (ctx.options().retention()) {
      long retention = ctx.config().retentionInterval().toMillis();
      maintenanceThread.scheduleWithFixedDelay(
          maintenance::sweep, Math.min(retention, 1000), retention, TimeUnit.MILLISECONDS);
    }
    Suspects suspects = new Suspects();
    OutcomeRecorder recorder = new OutcomeRecorder(ctx.inbox(), ctx.events());
    ShardProcessor.Shared shared =
        new ShardProcessor.Shared(
            this,
            ctx,
            map,
            nodes,
            suspects,
            recorder,
            watchdog,
            new TimeoutRecovery(ctx.inbox(), ctx.options().processingTimeout(), suspects, recorder),
            this::startProcessor);
    for (int i = 0; i < ctx.options().concurrency(); i++) {
      startProcessor(new ShardProcessor(shared, i));
    }
  }

  /** A processor of the first ones, or the replacement of one whose batch timed out. */
  private void startProcessor(ShardProcessor processor) {
    processors.add(processor);
    threads.startProcessor(processor);
  }

  /** The processors' node connections are their own: nothing long-lived to register. */
  @Override
  public void opened(WorkerConnection connection) {}

  @Override
  public void closed(WorkerConnection connection) {}

  @Override
  public int[] heldPartitions() {
    return map.partitions();
  }

  /**
   * Stops claiming, waits for the batches in hand up to the grace period, takes the batches still
   * in hand away (their statements cancelled, their handlers interrupted, nobody charged) and cuts
   * their connections (their nodes roll back), then gives the leases back.
   */
  @Override
  public void shutdown() {
    wakeSleepers();
    shardsThread.shutdown();
    maintenanceThread.shutdown();
    threads.joinAll(System.nanoTime() + ctx.options().shutdownGrace().toNanos());
    for (InFlightBatch batch : watchdog.inFlight()) {
      if (batch.stop()) {
        LOG.warn(
            "inbox {}: a batch of {} did not finish within the shutdown grace; rolled back",
            ctx.inbox(),
            batch.eventIds().size());
      }
    }
    processors.forEach(ShardProcessor::abort);
    long abortEnd = System.nanoTime() + ABORT_WAIT.toNanos();
    List<Thread> all = threads.joinAll(abortEnd);
    watchdog.shutdownNow();
    watchdog.awaitTermination(abortEnd);
    Threads.awaitQuietly(shardsThread, abortEnd);
    Threads.awaitQuietly(maintenanceThread, abortEnd);
    if (maintenanceThread.isTerminated()) {
      maintenance.announceStopped();
      maintenance.close();
    } else {
      maintenance.abort();
    }
    map.leave();
    ctx.events().close();
    for (Thread t : all) {
      if (t.isAlive()) {
        LOG.warn(
            "inbox {}: thread {} is still running a handler that ignores interruption",
            ctx.inbox(),
            t.getName());
      }
    }
    LOG.info("inbox {}: worker {} stopped", ctx.inbox(), ctx.config().workerId());
  }
}
