package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL {@link InboxWorker}'s lifecycle: at most one {@link WorkerRun} at a time (start
 * makes one, stop ends it), the failure that stopped the worker, and {@link #runOnce()}. Built by
 * {@link WorkerFactory}.
 */
final class WorkerRuntime implements InboxWorker {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerRuntime.class);

  private final WorkerContext ctx;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private WorkerRun run;

  /** Open (count 1) while a run is going; a worker never started counts as terminated. */
  private volatile CountDownLatch terminated = new CountDownLatch(0);

  WorkerRuntime(WorkerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public synchronized void start() {
    if (run != null) {
      throw new IllegalStateException("worker for inbox " + ctx.inbox() + " is already running");
    }
    failure.set(null);
    terminated = new CountDownLatch(1);
    run = new WorkerRun(ctx, this::fail);
    run.start();
    LOG.info(
        "inbox {}: worker {} started (batch size {}, concurrency {}, {})",
        ctx.inbox(),
        ctx.workerId(),
        ctx.options().batchSize(),
        ctx.options().concurrency(),
        ctx.options().listen() ? "LISTEN" : "poll only");
  }

  @Override
  public void stop() {
    WorkerRun r;
    CountDownLatch done;
    synchronized (this) {
      r = run != null && run.beginStop() ? run : null;
      done = terminated;
    }
    if (r == null) {
      // Not running, or another thread is stopping it: wait for that.
      try {
        awaitTermination(Duration.ofMinutes(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    r.shutdown();
    synchronized (this) {
      run = null;
    }
    done.countDown();
  }

  @Override
  public int runOnce() {
    boolean running;
    synchronized (this) {
      running = run != null;
    }
    try (WorkerConnection wc = WorkerConnection.open(ctx.jdbi(), ctx.inbox(), true, "once")) {
      if (ctx.scope().automatic() && !running) {
        // No heartbeat thread: take part in the leases once, so the claim has partitions to guard.
        LeaseKeeper keeper =
            new LeaseKeeper(
                ctx, (PartitionAssignment.Automatic) ctx.options().partitions(), () -> {});
        keeper.heartbeat();
        keeper.closeConnection();
      }
      return new BatchRunner(ctx).run(wc, DispatchReason.MANUAL, 1, BatchRunner.Tracker.NONE);
    } catch (SQLException e) {
      throw new InboxException("runOnce failed: " + e.getMessage(), ctx.inbox(), e);
    } catch (BatchRunner.TakenAwayException e) {
      throw new IllegalStateException("a runOnce batch has no watchdog", e);
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return run != null && !run.stopRequested();
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
  private void fail(Throwable error) {
    failure.compareAndSet(null, error);
    Thread stopper = new Thread(this::stop, "inbox-" + ctx.inbox() + "-stopper");
    stopper.setDaemon(true);
    stopper.start();
  }
}
