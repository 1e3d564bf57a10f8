package dev.pginbox.benchmarks;

import java.util.concurrent.locks.LockSupport;

/**
 * A thread that asks to sleep 1 ms again and again and records how much later than asked it woke
 * up (jHiccup's method): what the machine and the JVM add to any latency on their own (scheduling
 * on busy cores, safepoints, collections), to set beside a latency tail.
 */
final class Hiccups implements AutoCloseable {

  private static final long INTERVAL_NANOS = 1_000_000L;

  private final LatencyRecorder overshoot = new LatencyRecorder();
  private final Thread thread;
  private volatile boolean running = true;

  Hiccups() {
    thread = new Thread(this::run, "hiccups");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (running) {
      long before = System.nanoTime();
      LockSupport.parkNanos(INTERVAL_NANOS);
      long late = System.nanoTime() - before - INTERVAL_NANOS;
      synchronized (overshoot) {
        overshoot.recordNanos(late);
      }
    }
  }

  /** How late the sleeper woke: "p99 X ms, max Y ms". */
  String summary() {
    synchronized (overshoot) {
      return String.format(java.util.Locale.ROOT, "p99 %.2f, max %.2f ms", overshoot.percentileMillis(99),
          overshoot.maxMillis());
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join();
  }
}
