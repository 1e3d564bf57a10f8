package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.connection.RunControl;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Whether a run goes on, what both kinds of run ({@link RunningWorker}, {@link ShardRun}) share:
 * stop begun once, a fatal failure handed to the worker, sleeps that stop cuts short.
 */
abstract class RunState implements RunControl, Run {

  private final Consumer<Throwable> onFatal;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopLatch = new CountDownLatch(1);
  private volatile boolean failed;

  /** {@code onFatal}: what to do when the handler aborts (remember the error, stop the worker). */
  RunState(Consumer<Throwable> onFatal) {
    this.onFatal = onFatal;
  }

  @Override
  public final boolean stopping() {
    return stopping.get() || failed;
  }

  @Override
  public final boolean stopRequested() {
    return stopping.get();
  }

  @Override
  public final boolean beginStop() {
    return stopping.compareAndSet(false, true);
  }

  @Override
  public final void fail(Throwable error) {
    failed = true;
    onFatal.accept(error);
  }

  @Override
  public final void sleep(Duration delay) throws InterruptedException {
    stopLatch.await(delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Ends every sleep of the run's threads: shutdown has begun. */
  final void wakeSleepers() {
    stopLatch.countDown();
  }
}
