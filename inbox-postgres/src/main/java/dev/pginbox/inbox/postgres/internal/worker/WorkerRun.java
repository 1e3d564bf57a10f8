package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One start..stop of a worker: wires its threads (coordinator, processors, listener, watchdog,
 * background work) and connections, and takes them all down again at stop. Every thread of the run
 * talks to its own run, so a thread that outlives its run (a handler ignoring interruption) cannot
 * touch the slots or the queue of a later one.
 */
final class WorkerRun {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerRun.class);

  /** After the grace period, how long stop waits for the threads whose batches it rolled back. */
  private static final Duration ABORT_WAIT = Duration.ofSeconds(5);

  private final WorkerContext ctx;
  private final Consumer<Throwable> onFatal;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile boolean failed;
  private final CountDownLatch stopLatch = new CountDownLatch(1);
  private final Wakeups wakeups = new Wakeups();
  private final DispatchSlots slots;
  private final Set<WorkerConnection> connections = ConcurrentHashMap.newKeySet();
  private final Threads threads;
  private final Watchdog watchdog;
  private final Background background;

  /**
   * {@code onFatal}: what to do when the handler aborts (remember the error and stop the worker).
   */
  WorkerRun(WorkerContext ctx, Consumer<Throwable> onFatal) {
    this.ctx = ctx;
    this.onFatal = onFatal;
    this.slots = new DispatchSlots(ctx.options().concurrency(), ctx.options().batchSize());
    this.threads = new Threads(ctx.inbox());
    this.watchdog = new Watchdog(threads.factory("watchdog"), ctx.options().processingTimeout());
    this.background = new Background(ctx, threads, () -> wakeups.post(Wakeups.Event.RECHECK));
  }

  void start() {
    ctx.metrics().registerGauges();
    background.start();
    for (int i = 0; i < ctx.options().concurrency(); i++) {
      threads.startProcessor(new Processor(this, ctx, null, null));
    }
    if (ctx.options().listen()) {
      threads.start(
          new NotificationListener(this, ctx, wakeups, ctx.options().channel()), "listener");
    }
    threads.start(new Coordinator(this, ctx, wakeups), "coordinator");
  }

  // ---------------------------------------------------------------- for the run's threads

  /** True once stop began, or the handler aborted (a failed worker claims nothing more). */
  boolean stopping() {
    return stopping.get() || failed;
  }

  /** True once stop began. */
  boolean stopRequested() {
    return stopping.get();
  }

  /** A fatal error (the handler aborted): this run stops claiming, the worker stops. */
  void fail(Throwable error) {
    failed = true;
    onFatal.accept(error);
  }

  /** Sleeps, but returns early when the run stops. */
  void sleep(Duration delay) throws InterruptedException {
    stopLatch.await(delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  void register(WorkerConnection wc) {
    connections.add(wc);
    if (stopping.get()) {
      wc.abort();
    }
  }

  void unregister(WorkerConnection wc) {
    connections.remove(wc);
  }

  boolean hasFreeSlot() {
    return slots.hasFree();
  }

  int reserved() {
    return slots.reserved();
  }

  /**
   * Hands a batch to a free processor; false when none is free. A null reason is decided by what
   * the claim gets (a full batch: MAX_REACHED, fewer: TIMEOUT); a claim of fewer than {@code
   * minimum} messages is rolled back.
   */
  boolean dispatch(DispatchReason reason, int minimum) {
    return slots.dispatch(reason, minimum);
  }

  /** The next dispatch for a processor; null when the run stops. */
  Dispatch nextDispatch() throws InterruptedException {
    return slots.next(stopping);
  }

  void dispatchDone(Dispatch d, int claimed, boolean failed) {
    if (slots.done(d)) {
      // A full batch hints at more waiting, unless a batch is one message: then it says nothing.
      // A claim given back for being short of its minimum leaves the decision to a count.
      int batchSize = ctx.options().batchSize();
      wakeups.post(
          failed
              ? Wakeups.Event.RECHECK
              : claimed == 0
                  ? (d.minimum > 1 ? Wakeups.Event.RECHECK : Wakeups.Event.SLOT_FREE)
                  : claimed >= batchSize && batchSize > 1
                      ? Wakeups.Event.BATCH_FULL
                      : Wakeups.Event.BATCH_DONE);
    }
  }

  /** The run's side of one running batch: its reservation and its processing timeout. */
  BatchRunner.Tracker tracker(Dispatch d) {
    return new BatchRunner.Tracker() {
      @Override
      public void claimed(int count) {
        slots.claimed(d, count);
      }

      @Override
      public Runnable started(Batch batch) {
        return watchdog.watch(batch, b -> timeout(b, d));
      }
    };
  }

  private void timeout(Batch batch, Dispatch d) {
    // Set before the take-away: the processor that loses the batch reads it to hand the dispatch
    // over.
    d.timedOut = true;
    if (!batch.takeAway(Batch.TIMED_OUT)) {
      d.timedOut = false;
      return;
    }
    watchdog.forget(batch);
    LOG.warn(
        "inbox {}: a batch of {} passed the processing timeout of {}; rolling it back",
        ctx.inbox(),
        batch.eventIds.size(),
        ctx.options().processingTimeout());
    // The stuck thread may never come back: a new processor records the failures and takes its
    // place.
    threads.startProcessor(new Processor(this, ctx, batch, d));
  }

  // ---------------------------------------------------------------- stop

  /** True for the one caller that gets to stop this run. */
  boolean beginStop() {
    return stopping.compareAndSet(false, true);
  }

  /**
   * Stops claiming, waits for in-flight batches up to the grace period, rolls back the rest by
   * closing their connections, gives the leases back and waits for every thread.
   */
  void shutdown() {
    stopLatch.countDown();
    wakeups.post(Wakeups.Event.STOP);
    slots.stop();
    for (WorkerConnection wc : connections) {
      wc.abort(); // the LISTEN connection blocks in a read; the coordinator's holds no transaction
    }
    background.stopScheduling();
    threads.joinProcessors(System.nanoTime() + ctx.options().shutdownGrace().toNanos());
    for (Batch batch : watchdog.inFlight()) {
      if (batch.takeAway(Batch.ABORTED)) {
        LOG.warn(
            "inbox {}: a batch of {} did not finish within the shutdown grace; rolled back",
            ctx.inbox(),
            batch.eventIds.size());
      }
    }
    long abortEnd = System.nanoTime() + ABORT_WAIT.toNanos();
    List<Thread> all = threads.joinAll(abortEnd);
    watchdog.shutdownNow();
    background.finish(abortEnd);
    watchdog.awaitTermination(abortEnd);
    ctx.metrics().close();
    for (Thread t : all) {
      if (t.isAlive()) {
        LOG.warn(
            "inbox {}: thread {} is still running a handler that ignores interruption",
            ctx.inbox(),
            t.getName());
      }
    }
    LOG.info("inbox {}: worker {} stopped", ctx.inbox(), ctx.workerId());
  }
}
