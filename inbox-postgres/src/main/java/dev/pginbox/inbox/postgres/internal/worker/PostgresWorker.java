package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.postgres.internal.worker.connection.StartupCheck;
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
 * The PostgreSQL {@link InboxWorker}: its lifecycle (at most one {@link RunningWorker} at a time:
 * start makes one, stop ends it), the failure that stopped it, and {@link #runOnce()} ({@link
 * RunOnce}). The only public way into this package, used by {@code
 * dev.pginbox.inbox.postgres.PostgresInboxWorker}.
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
    // Before anything that stop() would wait for: a start that fails leaves nothing running.
    StartupCheck.Checked checked =
        StartupCheck.verify(
            ctx.jdbi(),
            ctx.inbox(),
            ctx.options().processingTimeout(),
            ctx.given().boundary() == null);
    if (checked.distributed()) {
      ShardRun shards = new ShardRun(ctx, this::fail); // refuses what a shard's claim cannot do
      begin(shards);
      shards.start();
    } else {
      RunningWorker single = new RunningWorker(ctx, this::fail);
      begin(single);
      single.start(checked.connection());
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
  }

  private void begin(Run started) {
    failure.set(null);
    terminated = new CountDownLatch(1);
    run = started;
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
