package dev.mailroom.inbox.postgres.internal.worker;

import dev.mailroom.inbox.BatchHandler;
import dev.mailroom.inbox.InboxWorker;
import dev.mailroom.inbox.MessageHandler;
import dev.mailroom.inbox.PartitionAssignment;
import dev.mailroom.inbox.WorkerListener;
import dev.mailroom.inbox.WorkerListener.DispatchReason;
import dev.mailroom.inbox.WorkerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL {@link InboxWorker}: a coordinator thread applies the batching rule and hands
 * dispatches to {@code concurrency} processor threads, each with its own connection; a listener
 * thread holds the LISTEN connection; a watchdog enforces the processing timeout; maintenance
 * threads refresh the gauges, sweep retention and (automatic partitions) keep the leases.
 * Built through {@code dev.mailroom.inbox.postgres.PostgresInboxWorker}.
 */
public final class WorkerRuntime implements InboxWorker {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerRuntime.class);
  /** After the grace period, how long stop() waits for the threads whose batches it rolled back. */
  private static final Duration ABORT_WAIT = Duration.ofSeconds(5);

  /** Put in the dispatch queue at stop: wakes the idle processors at once. */
  private static final Dispatch STOP = new Dispatch(DispatchReason.MANUAL, 0);

  private final WorkerContext ctx;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile Run run;
  /** Open (count 1) while a run is going; a worker never started counts as terminated. */
  private volatile CountDownLatch terminated = new CountDownLatch(0);

  private WorkerRuntime(WorkerContext ctx) {
    this.ctx = ctx;
  }

  /** Everything a worker is made of; exactly one of the two handlers is non-null. */
  public static WorkerRuntime create(DataSource dataSource, WorkerOptions options, MessageHandler messageHandler,
      BatchHandler batchHandler, WorkerListener listener, MeterRegistry registry, String workerId,
      Duration gaugeInterval, Duration retentionInterval, int retentionBatchSize) {
    WorkerContext ctx = new WorkerContext(options, workerId, WorkerConnection.jdbi(dataSource), messageHandler,
        batchHandler, new SafeListener(listener), new WorkerMetrics(registry, options.inbox()),
        new ClaimScope(options.partitions(), options.inbox(), workerId), gaugeInterval, retentionInterval,
        retentionBatchSize);
    return new WorkerRuntime(ctx);
  }

  public String workerId() {
    return ctx.workerId();
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  public synchronized void start() {
    if (run != null) {
      throw new IllegalStateException("worker for inbox " + ctx.inbox() + " is already running");
    }
    failure.set(null);
    terminated = new CountDownLatch(1);
    Run r = new Run();
    run = r;
    r.start();
    LOG.info("inbox {}: worker {} started (batch size {}, concurrency {}, {})", ctx.inbox(), ctx.workerId(),
        ctx.options().batchSize(), ctx.options().concurrency(), ctx.options().listen() ? "LISTEN" : "poll only");
  }

  @Override
  public void stop() {
    Run r;
    synchronized (this) {
      r = run;
      if (r == null || !r.stopping.compareAndSet(false, true)) {
        r = null;
      }
    }
    if (r == null) {
      try {
        awaitTermination(Duration.ofMinutes(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    r.shutdown(true);
    synchronized (this) {
      run = null;
    }
    terminated.countDown();
  }

  /**
   * Simulates a crash, for tests: closes every connection at once and ends the threads without
   * giving anything back (no lease release, no failures recorded). The database sees dead sessions.
   */
  public void crash() {
    Run r;
    synchronized (this) {
      r = run;
      if (r == null || !r.stopping.compareAndSet(false, true)) {
        return;
      }
    }
    r.shutdown(false);
    synchronized (this) {
      run = null;
    }
    terminated.countDown();
  }

  @Override
  public int runOnce() {
    Run r = run;
    try (WorkerConnection wc = WorkerConnection.open(ctx.jdbi(), ctx.inbox(), true, "once")) {
      if (ctx.scope().automatic() && r == null) {
        LeaseKeeper keeper = new LeaseKeeper(ctx, (PartitionAssignment.Automatic) ctx.options().partitions(), () -> { });
        keeper.heartbeat();
        keeper.closeConnection();
      }
      return new BatchRunner(ctx).run(wc, DispatchReason.MANUAL, new BatchRunner.Tracker() {
        @Override
        public void claimed(int count) {}

        @Override
        public Runnable started(Batch batch) {
          return () -> { };
        }
      });
    } catch (SQLException e) {
      throw new dev.mailroom.inbox.InboxException("runOnce failed: " + e.getMessage(), ctx.inbox(), e);
    } catch (BatchRunner.TakenAwayException e) {
      throw new IllegalStateException("a runOnce batch has no watchdog", e);
    }
  }

  @Override
  public boolean isRunning() {
    Run r = run;
    return r != null && !r.stopping.get();
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure.get());
  }

  /** A fatal error (the handler aborted): remember it and stop from another thread. */
  void fail(Throwable error) {
    failure.compareAndSet(null, error);
    Thread stopper = new Thread(this::stop, "inbox-" + ctx.inbox() + "-stopper");
    stopper.setDaemon(true);
    stopper.start();
  }

  // ---------------------------------------------------------------- for the worker's threads

  boolean stopping() {
    Run r = run;
    // A failed worker claims nothing more, even before its stopper thread got going.
    return r == null || r.stopping.get() || failure.get() != null;
  }

  /** Sleeps, but returns early when the worker stops. */
  void sleep(Duration delay) throws InterruptedException {
    Run r = run;
    if (r != null) {
      r.stopLatch.await(delay.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  void register(WorkerConnection wc) {
    Run r = run;
    if (r != null) {
      r.connections.add(wc);
      if (r.stopping.get()) {
        wc.abort();
      }
    }
  }

  void unregister(WorkerConnection wc) {
    Run r = run;
    if (r != null) {
      r.connections.remove(wc);
    }
  }

  boolean hasFreeSlot() {
    Run r = run;
    return r != null && r.slots.availablePermits() > 0;
  }

  int reserved() {
    Run r = run;
    return r == null ? 0 : r.reserved.get();
  }

  /** Hands a batch to a free processor (the coordinator checked there is one). */
  void dispatch(DispatchReason reason) {
    Run r = run;
    if (r == null || !r.slots.tryAcquire()) {
      return;
    }
    r.reserved.addAndGet(ctx.options().batchSize());
    r.queue.add(new Dispatch(reason, ctx.options().batchSize()));
  }

  /** The next dispatch for a processor; null when the worker stops. */
  Dispatch nextDispatch() throws InterruptedException {
    Run r = run;
    while (r != null && !r.stopping.get()) {
      Dispatch d = r.queue.poll(1, TimeUnit.SECONDS);
      if (d == STOP) {
        r.queue.add(STOP); // for the next processor
        return null;
      }
      if (d != null) {
        return d;
      }
    }
    return null;
  }

  void dispatchDone(Dispatch d, int claimed, boolean failed) {
    Run r = run;
    if (r == null || !d.complete()) {
      return;
    }
    r.reserved.addAndGet(-d.reservation);
    r.slots.release();
    r.wakeups.post(failed ? Wakeups.Event.RECHECK
        : claimed > 0 ? Wakeups.Event.BATCH_DONE : Wakeups.Event.SLOT_FREE);
  }

  /** The runtime's side of one running batch: reservation, watchdog, in-flight registry. */
  BatchRunner.Tracker tracker(Dispatch d, Processor processor) {
    Run r = run;
    return new BatchRunner.Tracker() {
      @Override
      public void claimed(int count) {
        int before = d.reservation;
        d.reservation = count;
        r.reserved.addAndGet(count - before);
      }

      @Override
      public Runnable started(Batch batch) {
        r.inFlight.add(batch);
        ScheduledFuture<?> timer;
        try {
          timer = r.watchdog.schedule(() -> timeout(r, batch, d),
              ctx.options().processingTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
          timer = null; // the worker is stopping: stop() itself takes batches away now
        }
        ScheduledFuture<?> armed = timer;
        return () -> {
          if (armed != null) {
            armed.cancel(false);
          }
          r.inFlight.remove(batch);
        };
      }
    };
  }

  private void timeout(Run r, Batch batch, Dispatch d) {
    d.timedOut = true;
    if (!batch.takeAway(Batch.TIMED_OUT)) {
      d.timedOut = false;
      return;
    }
    r.inFlight.remove(batch);
    LOG.warn("inbox {}: a batch of {} passed the processing timeout of {}; rolling it back", ctx.inbox(),
        batch.eventIds.size(), ctx.options().processingTimeout());
    // The stuck thread may never come back: a new processor records the failures and takes its place.
    r.startProcessor(new Processor(this, ctx, batch, d));
  }

  // ---------------------------------------------------------------- one start..stop

  private final class Run {
    final java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
    final CountDownLatch stopLatch = new CountDownLatch(1);
    final Wakeups wakeups = new Wakeups();
    final LinkedBlockingQueue<Dispatch> queue = new LinkedBlockingQueue<>();
    // One dispatch more than processors: the next batch waits in the queue while the current one
    // runs, so counting for it is off the critical path (full batches back to back).
    final Semaphore slots = new Semaphore(ctx.options().concurrency() + 1);
    final AtomicInteger reserved = new AtomicInteger();
    final Set<WorkerConnection> connections = ConcurrentHashMap.newKeySet();
    final Set<Batch> inFlight = ConcurrentHashMap.newKeySet();
    final Set<Thread> processors = ConcurrentHashMap.newKeySet();
    final List<Thread> threads = new ArrayList<>();
    final AtomicInteger processorNumber = new AtomicInteger();
    final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(threads("watchdog"));
    ScheduledExecutorService maintenance;
    ScheduledExecutorService leases;
    Maintenance maintenanceTask;
    LeaseKeeper leaseKeeper;

    void start() {
      ctx.metrics().registerGauges();
      if (ctx.options().partitions() instanceof PartitionAssignment.Automatic automatic) {
        leaseKeeper = new LeaseKeeper(ctx, automatic, () -> wakeups.post(Wakeups.Event.RECHECK));
        leases = Executors.newSingleThreadScheduledExecutor(threads("leases"));
        long period = Math.max(1, automatic.leaseDuration().toMillis() / 3);
        leases.scheduleWithFixedDelay(leaseKeeper::heartbeat, 0, period, TimeUnit.MILLISECONDS);
      }
      maintenanceTask = new Maintenance(ctx);
      maintenance = Executors.newSingleThreadScheduledExecutor(threads("maintenance"));
      long gauges = ctx.gaugeInterval().toMillis();
      maintenance.scheduleWithFixedDelay(maintenanceTask::refreshGauges, 0, gauges, TimeUnit.MILLISECONDS);
      if (ctx.options().retention()) {
        long retention = ctx.retentionInterval().toMillis();
        maintenance.scheduleWithFixedDelay(maintenanceTask::sweep, Math.min(retention, 1000), retention,
            TimeUnit.MILLISECONDS);
      }
      for (int i = 0; i < ctx.options().concurrency(); i++) {
        startProcessor(new Processor(WorkerRuntime.this, ctx, null, null));
      }
      if (ctx.options().listen()) {
        startThread(new NotificationListener(WorkerRuntime.this, ctx, wakeups, ctx.options().channel()), "listener");
      }
      startThread(new Coordinator(WorkerRuntime.this, ctx, wakeups), "coordinator");
    }

    void startProcessor(Processor processor) {
      Thread t = startThread(processor, "processor-" + processorNumber.incrementAndGet());
      processors.add(t);
    }

    private Thread startThread(Runnable task, String role) {
      Thread t = new Thread(task, "inbox-" + ctx.inbox() + "-" + role);
      t.setDaemon(true);
      synchronized (threads) {
        threads.add(t);
      }
      t.start();
      return t;
    }

    private ThreadFactory threads(String role) {
      return task -> {
        Thread t = new Thread(task, "inbox-" + ctx.inbox() + "-" + role);
        t.setDaemon(true);
        return t;
      };
    }

    /** graceful: wait for in-flight batches up to the grace period and give the leases back. */
    void shutdown(boolean graceful) {
      stopLatch.countDown();
      wakeups.post(Wakeups.Event.STOP);
      queue.add(STOP);
      for (WorkerConnection wc : connections) {
        wc.abort(); // the LISTEN connection blocks in a read; the coordinator's holds no transaction
      }
      if (leases != null) {
        leases.shutdown();
      }
      maintenance.shutdown();
      long graceEnd = System.nanoTime() + (graceful ? ctx.options().shutdownGrace().toNanos() : 0);
      joinAll(processors, graceEnd);
      for (Batch batch : inFlight) {
        if (batch.takeAway(Batch.ABORTED)) {
          LOG.warn("inbox {}: a batch of {} did not finish within the shutdown grace; rolled back", ctx.inbox(),
              batch.eventIds.size());
        }
      }
      long abortEnd = System.nanoTime() + ABORT_WAIT.toNanos();
      List<Thread> all;
      synchronized (threads) {
        all = new ArrayList<>(threads);
      }
      joinAll(all, abortEnd);
      watchdog.shutdownNow();
      awaitQuietly(maintenance, abortEnd);
      maintenanceTask.close();
      if (leases != null) {
        awaitQuietly(leases, abortEnd);
        if (graceful) {
          leaseKeeper.leave();
        } else {
          leaseKeeper.closeConnection();
        }
      }
      awaitQuietly(watchdog, abortEnd);
      ctx.metrics().close();
      for (Thread t : all) {
        if (t.isAlive()) {
          LOG.warn("inbox {}: thread {} is still running a handler that ignores interruption", ctx.inbox(),
              t.getName());
        }
      }
      LOG.info("inbox {}: worker {} stopped", ctx.inbox(), ctx.workerId());
    }

    private void joinAll(Iterable<Thread> list, long deadline) {
      for (Thread t : list) {
        long left = deadline - System.nanoTime();
        if (t == Thread.currentThread()) {
          continue;
        }
        try {
          if (left > 0) {
            TimeUnit.NANOSECONDS.timedJoin(t, left);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    private void awaitQuietly(ScheduledExecutorService executor, long deadline) {
      try {
        executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
