package dev.pginbox.inbox.postgres.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one run: daemon threads named {@code inbox-<name>-<role>}, remembered so that stop
 * can wait for them (for the grace period, and again after rolling back what is left) and name
 * those that never end.
 */
final class Threads {

  private final String prefix;
  private final List<Thread> all = new ArrayList<>();
  private final AtomicInteger processorNumber = new AtomicInteger();

  Threads(String inbox) {
    this.prefix = "inbox-" + inbox + "-";
  }

  Thread start(Runnable task, String role) {
    Thread t = new Thread(task, prefix + role);
    t.setDaemon(true);
    synchronized (all) {
      all.add(t);
    }
    t.start();
    return t;
  }

  void startProcessor(Runnable processor) {
    start(processor, "processor-" + processorNumber.incrementAndGet());
  }

  /** For the run's executors (not remembered: they are shut down and awaited on their own). */
  ThreadFactory factory(String role) {
    return task -> {
      Thread t = new Thread(task, prefix + role);
      t.setDaemon(true);
      return t;
    };
  }

  /** Waits for every thread started so far until the deadline; returns them. */
  List<Thread> joinAll(long deadlineNanos) {
    List<Thread> snapshot;
    synchronized (all) {
      snapshot = new ArrayList<>(all);
    }
    join(snapshot, deadlineNanos);
    return snapshot;
  }

  private static void join(Iterable<Thread> threads, long deadlineNanos) {
    for (Thread t : threads) {
      long left = deadlineNanos - System.nanoTime();
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

  static void awaitQuietly(ExecutorService executor, long deadlineNanos) {
    try {
      executor.awaitTermination(
          Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
