package dev.mailroom.collector;

import dev.pginbox.inbox.WorkerListener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Turns worker events into the original collector's log lines ({@code connected}, {@code NOTIFY
 * called; waking up}, {@code processing N rows... (max reached)} / {@code (timeout)}) and applies
 * the send-rate budget between batches: after a batch commits, the worker's thread waits here until
 * the budget allows another email, so no transaction is open while it waits.
 */
final class CollectorListener implements WorkerListener {

  private static final long MAX_WAIT_SLICE_NANOS = 100_000_000L;

  private final CollectorLog log;
  private final String connectingLine;
  private final SendRateLimiter rateLimiter;
  private final BooleanSupplier stopping;
  private final AtomicBoolean awake = new AtomicBoolean();
  private final AtomicBoolean connected = new AtomicBoolean();

  CollectorListener(
      CollectorLog log,
      String connectingLine,
      SendRateLimiter rateLimiter,
      BooleanSupplier stopping) {
    this.log = log;
    this.connectingLine = connectingLine;
    this.rateLimiter = rateLimiter;
    this.stopping = stopping;
  }

  boolean isConnected() {
    return connected.get();
  }

  @Override
  public void onWakeUp(WakeUpCause cause) {
    // Logged once per batch cycle, as the original did for the first notification it counted.
    if (cause == WakeUpCause.NOTIFY && awake.compareAndSet(false, true)) {
      log.info("NOTIFY called; waking up");
    }
  }

  @Override
  public void onDispatch(int count, DispatchReason reason) {
    awake.set(false);
    log.info(
        "processing "
            + count
            + " rows... ("
            + (reason == DispatchReason.MAX_REACHED ? "max reached" : "timeout")
            + ")");
  }

  @Override
  public void onBatchCommitted(int count) {
    if (rateLimiter == null) {
      return;
    }
    // Wait off the budget's debt in short slices so a shutdown is never held up for long.
    try {
      while (!stopping.getAsBoolean() && rateLimiter.available() < 1) {
        double missing = 1 - rateLimiter.available();
        long nanos =
            Math.min(MAX_WAIT_SLICE_NANOS, (long) Math.ceil(missing * 1e9 / ratePerSecond()));
        Thread.sleep(Math.max(1, nanos / 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private double ratePerSecond() {
    return rateLimiter.ratePerSecond();
  }

  @Override
  public void onConnected() {
    connected.set(true);
    log.info("connected");
  }

  @Override
  public void onConnectionLost(Throwable error, Duration retryIn) {
    connected.set(false);
    log.warn(
        "connection lost: " + firstLine(error) + "; reconnecting in " + retryIn.toMillis() + "ms");
    log.info("connecting to " + connectingLine);
  }

  private static String firstLine(Throwable error) {
    String message = error == null ? "unknown error" : String.valueOf(error.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
