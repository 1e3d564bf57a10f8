package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.internal.worker.batch.HandlerTurns;
import dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.internal.worker.batch.TimeoutRecovery;
import dev.pginbox.inbox.postgres.internal.worker.connection.ReconnectLoop;
import dev.pginbox.inbox.postgres.internal.worker.connection.RunControl;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.wake.ClaimQueue;
import dev.pginbox.inbox.postgres.internal.worker.wake.Coordinator;
import dev.pginbox.inbox.postgres.internal.worker.wake.ListenerWake;
import dev.pginbox.inbox.postgres.internal.worker.wake.NotificationListener;
import dev.pginbox.inbox.postgres.internal.worker.wake.WaitingMessages;
import dev.pginbox.inbox.postgres.internal.worker.wake.Wakeups;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One start..stop of a worker: wires its threads (coordinator, processors, listener, watchdog,
 * periodic tasks) and takes them all down again at stop. Each thread gets the few collaborators it
 * needs ({@link RunControl}, the {@link ClaimQueue}, ...), never this object, and talks only to its
 * own run, so a thread that outlives its run (a handler ignoring interruption) cannot touch the
 * queue of a later one.
 */
final class RunningWorker extends RunState {

  private static final Logger LOG = LoggerFactory.getLogger(RunningWorker.class);

  /** After the grace period, how long stop waits for the threads whose batches it rolled back. */
  private static final Duration ABORT_WAIT = Duration.ofSeconds(5);

  /**
   * How long a handler whose statement stop cancelled gets to return before its connection is cut.
   */
  private static final Duration CANCEL_WAIT = Duration.ofSeconds(1);

  private final WorkerContext ctx;

  /** Stop has cut the long-lived connections still open after the grace period. */
  private volatile boolean connectionsCut;

  private final Wakeups wakeups = new Wakeups();
  private final ClaimQueue queue;
  private final Set<WorkerConnection> connections = ConcurrentHashMap.newKeySet();
  private final Threads threads;
  private final Watchdog watchdog;
  private final PeriodicTasks periodic;

  /**
   * {@code onFatal}: what to do when the handler aborts (remember the error and stop the worker).
   */
  RunningWorker(WorkerContext ctx, Consumer<Throwable> onFatal) {
    super(onFatal);
    this.ctx = ctx;
    this.queue = new ClaimQueue(processors(ctx), ctx.options(), wakeups);
    this.threads = new Threads(ctx.inbox());
    this.watchdog = new Watchdog(threads.factory("watchdog"), ctx.options().processingTimeout());
    this.periodic = new PeriodicTasks(ctx, threads, () -> wakeups.post(Wakeups.Event.RECHECK));
  }

  /** {@code firstConnection}: the start check's, for the first processor (null: it opens one). */
  void start(WorkerConnection firstConnection) {
    ctx.events().registerGauges();
    periodic.start();
    Suspects suspects = new Suspects();
    OutcomeRecorder recorder = new OutcomeRecorder(ctx.inbox(), ctx.events());
    Processor.Shared shared =
        new Processor.Shared(
            this,
            ctx,
            queue,
            watchdog,
            suspects,
            recorder,
            new TimeoutRecovery(ctx.inbox(), ctx.options().processingTimeout(), suspects, recorder),
            ctx.options().claimAhead()
                ? new HandlerTurns(ctx.options().concurrency(), this::stopping)
                : null,
            threads::startProcessor);
    for (int i = 0; i < processors(ctx); i++) {
      threads.startProcessor(new Processor(shared, i == 0 ? firstConnection : null));
    }
    ListenerWake listenerWake = new ListenerWake();
    ReconnectLoop reconnect = new ReconnectLoop(ctx.jdbi(), ctx.options(), ctx.events());
    if (ctx.options().listen()) {
      Runnable onLeasesChanged =
          ctx.options().partitions() instanceof PartitionAssignment.Automatic
              ? periodic::leasesChanged
              : null;
      threads.start(
          new NotificationListener(
              this,
              reconnect,
              ctx.options(),
              ctx.events(),
              wakeups,
              queue,
              listenerWake,
              onLeasesChanged),
          "listener");
    }
    Coordinator coordinator =
        new Coordinator(
            this,
            reconnect,
            ctx.options(),
            new WaitingMessages(ctx.inbox(), ctx.scope(), ctx.events()),
            ctx.events(),
            wakeups,
            queue,
            listenerWake);
    threads.start(coordinator, "coordinator");
  }

  /** One per unit of concurrency, and with claim ahead one more (see {@link HandlerTurns}). */
  private static int processors(WorkerContext ctx) {
    return ctx.options().concurrency() + (ctx.options().claimAhead() ? 1 : 0);
  }

  @Override
  public int[] heldPartitions() {
    return ctx.scope().held();
  }

  @Override
  public void opened(WorkerConnection wc) {
    connections.add(wc);
    if (connectionsCut) {
      wc.abort();
    }
  }

  @Override
  public void closed(WorkerConnection wc) {
    connections.remove(wc);
  }

  /**
   * Stops claiming, waits for in-flight batches up to the grace period, rolls back the rest by
   * closing their connections, gives the leases back and waits for every thread.
   *
   * <p>The coordinator and the listener end on their own (the coordinator wakes the listener, see
   * {@link ListenerWake}) and give their connections back intact: a pool lent by the application
   * keeps them. Only a connection still open after the grace period is cut (a statement waiting for
   * an answer that does not come); neither holds a transaction.
   */
  @Override
  public void shutdown() {
    wakeSleepers();
    wakeups.post(Wakeups.Event.STOP);
    queue.stop();
    periodic.stopScheduling();
    long graceEnd = System.nanoTime() + ctx.options().shutdownGrace().toNanos();
    threads.joinAll(graceEnd);
    connectionsCut = true;
    for (WorkerConnection wc : connections) {
      wc.abort();
    }
    List<InFlightBatch> stopped = new ArrayList<>();
    for (InFlightBatch batch : watchdog.inFlight()) {
      if (batch.stop()) {
        LOG.warn(
            "inbox {}: a batch of {} did not finish within the shutdown grace; rolled back",
            ctx.inbox(),
            batch.eventIds().size());
        stopped.add(batch);
      }
    }
    long abortEnd = System.nanoTime() + ABORT_WAIT.toNanos();
    if (!stopped.isEmpty()) {
      // The cancelled handlers get a moment to return, so that their processors roll back on
      // intact connections (a pool would otherwise find them broken); the rest are cut.
      threads.joinAll(System.nanoTime() + CANCEL_WAIT.toNanos());
      stopped.forEach(InFlightBatch::abortIfStuck);
    }
    List<Thread> all = threads.joinAll(abortEnd);
    watchdog.shutdownNow();
    periodic.finish(abortEnd);
    watchdog.awaitTermination(abortEnd);
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
