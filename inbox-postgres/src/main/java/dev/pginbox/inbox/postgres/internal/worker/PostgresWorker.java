package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.postgres.internal.worker.connection.StartupCheck;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL {@link InboxWorker}: its lifecycle (at most one {@link Run} at a time: start makes
 * one, stop ends it; a {@link PendingRun} while the database has not answered yet), the failure
 * that stopped it, and {@link #runOnce()} ({@link RunOnce}). The only public way into this package,
 * used by {@code dev.pginbox.inbox.postgres.PostgresInboxWorker}.
 */
public final class PostgresWorker implements InboxWorker {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresWorker.class);

  private final WorkerContext ctx;
  private final RunOnce once;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private Run run;

  /** Open (count 1) while a run is going; a worker never started counts as terminated. */
  private volatile CountDownLatch terminated = new CountDownLatch(0);

  private PostgresWorker(WorkerContext ctx) {
    this.ctx = ctx;
    this.once = new RunOnce(ctx);
  }

  /** A worker from what the builder collected and validated. */
  public static InboxWorker create(WorkerConfig config, WorkerDependencies given) {
    return new PostgresWorker(WorkerContext.of(config, given));
  }

  @Override
  public synchronized void start() {
    if (run != null) {
      throw new IllegalStateException("worker for inbox " + ctx.inbox() + " is already running");
    }
    failure.set(null);
    // The check and the run's own refusals come before any thread: a start that fails leaves
    // nothing running.
    Run started;
    try {
      started = startRun(check());
    } catch (SQLException unreachable) {
      // Nobody can tell yet whether the inbox is distributed: the run is chosen when it answers.
      PendingRun pending = new PendingRun(ctx, this::fail, this::check, this::startRun);
      LOG.info(
          "inbox {}: the database is not reachable at start ({}); worker {} keeps trying and"
              + " starts claiming once it answers",
          ctx.inbox(),
          unreachable.getMessage(),
          ctx.config().workerId());
      pending.start(unreachable);
      started = pending;
    }
    terminated = new CountDownLatch(1);
    run = started;
  }

  /** The start check; a mistake trying again cannot fix throws an {@code InboxException}. */
  private StartupCheck.Checked check() throws SQLException {
    return StartupCheck.verify(
        ctx.jdbi(), ctx.inbox(), ctx.options().processingTimeout(), ctx.given().boundary() == null);
  }

  /**
   * Starts the run the check's answer calls for: shard by shard on a distributed inbox (refusing
   * first what a shard's claim cannot do), the single server's otherwise.
   */
  private Run startRun(StartupCheck.Checked checked) {
    Run started;
    if (checked.distributed()) {
      ShardRun shards = new ShardRun(ctx, this::fail);
      shards.start();
      started = shards;
    } else {
      RunningWorker single = new RunningWorker(ctx, this::fail);
      single.start(checked.connection());
      started = single;
    }
    LOG.info(
        "inbox {}: worker {} started (batch size {}, concurrency {}{}, {})",
        ctx.inbox(),
        ctx.config().workerId(),
        ctx.options().batchSize(),
        ctx.options().concurrency(),
        ctx.options().claimAhead() ? ", claiming ahead" : "",
        checked.distributed()
            ? "distributed: shard by shard, poll only"
            : ctx.options().listen() ? "LISTEN" : "poll only");
    return started;
  }

  @Override
  public void stop() {
    Run r;
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
    return once.run(running);
  }

  @Override
  public synchronized boolean isRunning() {
    return run != null && !run.stopRequested();
  }

  @Override
  public boolean isHealthy() {
    return isRunning() && ctx.events().healthy();
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public Set<Integer> heldPartitions() {
    Run r;
    synchronized (this) {
      r = run;
    }
    int[] held = r != null ? r.heldPartitions() : ctx.scope().held();
    return Arrays.stream(held).boxed().collect(Collectors.toUnmodifiableSet());
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
