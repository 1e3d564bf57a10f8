package dev.pginbox.inbox.postgres.internal.worker;

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
 * The batches of one run whose handlers are running, and the in-JVM processing timeout on each.
 * (The server-side bound set by the claim, {@link ServerBound}, is the net below it.)
 */
final class Watchdog {

  private final ScheduledExecutorService timer;
  private final long timeoutNanos;
  private final Set<Batch> inFlight = ConcurrentHashMap.newKeySet();

  Watchdog(ThreadFactory threads, Duration timeout) {
    this.timer = Executors.newSingleThreadScheduledExecutor(threads);
    this.timeoutNanos = timeout.toNanos();
  }

  /**
   * Watches a batch whose handler starts now: {@code onTimeout} runs if it is still in flight at
   * the timeout. Returns what to call when the handler is done.
   */
  Runnable watch(Batch batch, Consumer<Batch> onTimeout) {
    inFlight.add(batch);
    ScheduledFuture<?> scheduled;
    try {
      scheduled = timer.schedule(() -> onTimeout.accept(batch), timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      scheduled = null; // the worker is stopping: the shutdown itself takes batches away now
    }
    ScheduledFuture<?> armed = scheduled;
    return () -> {
      if (armed != null) {
        armed.cancel(false);
      }
      inFlight.remove(batch);
    };
  }

  void forget(Batch batch) {
    inFlight.remove(batch);
  }

  /** The batches whose handlers are running now. */
  Iterable<Batch> inFlight() {
    return inFlight;
  }

  void shutdownNow() {
    timer.shutdownNow();
  }

  void awaitTermination(long deadlineNanos) {
    Threads.awaitQuietly(timer, deadlineNanos);
  }
}
