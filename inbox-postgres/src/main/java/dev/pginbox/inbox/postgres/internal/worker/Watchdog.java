package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch;
import dev.pginbox.inbox.postgres.internal.worker.connection.ServerBound;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The batches of one run whose handlers are running, and the in-JVM processing timeout on each part
 * of them (the server-side bound set by the claim, {@link ServerBound}, is the net below it). At
 * the timeout it takes the batch from its processor and hands it to {@code onTimeout}, which ends
 * it on another thread; if that has not happened by the server-side bound, the batch's connection
 * is closed (the batch then goes back uncharged).
 */
final class Watchdog {

  private final ScheduledExecutorService timer;
  private final long timeoutNanos;
  private final long releaseLimitNanos;
  private final Set<InFlightBatch> inFlight = ConcurrentHashMap.newKeySet();

  Watchdog(ThreadFactory threads, Duration timeout) {
    this.timer = Executors.newSingleThreadScheduledExecutor(threads);
    this.timeoutNanos = timeout.toNanos();
    this.releaseLimitNanos = ServerBound.of(timeout).minus(timeout).toNanos();
  }

  /**
   * Watches a batch whose handler starts now; returns what to call when the handler is done. {@code
   * onTimeout} gets the batch once it is taken away.
   */
  Runnable watch(InFlightBatch batch, Consumer<InFlightBatch> onTimeout) {
    inFlight.add(batch);
    Runnable unwatch = () -> inFlight.remove(batch);
    ScheduledFuture<?>[] armed = new ScheduledFuture<?>[1];
    Runnable check =
        new Runnable() {
          @Override
          public void run() {
            if (!inFlight.contains(batch)) {
              return;
            }
            long due = batch.partStartNanos() + timeoutNanos - System.nanoTime();
            if (due > 0) { // a later part is running: its own timeout counts
              armed[0] = schedule(this, due);
              return;
            }
            if (batch.timeOut()) {
              inFlight.remove(batch);
              schedule(batch::abort, releaseLimitNanos);
              onTimeout.accept(batch);
            }
          }
        };
    armed[0] = schedule(check, timeoutNanos);
    return () -> {
      unwatch.run();
      ScheduledFuture<?> f = armed[0];
      if (f != null) {
        f.cancel(false);
      }
    };
  }

  private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    try {
      return timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      return null; // the worker is stopping: the shutdown itself takes batches away now
    }
  }

  /** The batches whose handlers are running now. */
  Iterable<InFlightBatch> inFlight() {
    return inFlight;
  }

  void shutdownNow() {
    timer.shutdownNow();
  }

  void awaitTermination(long deadlineNanos) {
    Threads.awaitQuietly(timer, deadlineNanos);
  }
}
