package dev.pginbox.benchmarks;

import static dev.pginbox.benchmarks.HeldXminLoad.produce;
import static dev.pginbox.benchmarks.HeldXminLoad.startSampler;

import dev.pginbox.benchmarks.HeldXminLoad.Phase;
import dev.pginbox.benchmarks.HeldXminLoad.Sample;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The steady flow {@link HeldXminScenario} and {@link SoakScenario} measure: {@code workers}
 * workers, one second of warm-up (not recorded; it also lets the workers of an ordered inbox meet),
 * the sampler and the producers (each sends every {@code producers}-th message of one schedule;
 * more than one lets commits share a WAL flush), started from {@link #t0}. {@link #finish} stops
 * the producers and waits for the handlers; closing stops whatever still runs.
 */
final class SteadyFlow implements AutoCloseable {
  final AtomicLongArray committedAt;
  final AtomicLongArray startedAt;
  final List<Sample> samples = new CopyOnWriteArrayList<>();
  final long t0;
  private final List<AtomicLong> next = new ArrayList<>();
  private final AtomicBoolean stopProducer = new AtomicBoolean();
  private final AtomicBoolean stopSampler = new AtomicBoolean();
  private final AtomicReference<Throwable> producerFailure = new AtomicReference<>();
  private final List<InboxWorker> workers = new ArrayList<>();
  private final List<Thread> producers = new ArrayList<>();
  private Thread sampler;

  /** For a run of {@code seconds} at {@code rate} messages/s from {@code producerCount} threads. */
  SteadyFlow(
      BenchDatabase db,
      PostgresInbox inbox,
      String name,
      int rate,
      int producerCount,
      int workerCount,
      int seconds) {
    String prefix = "m-";
    int capacity = (int) Math.min(Integer.MAX_VALUE - 8, (long) rate * (seconds + 30));
    committedAt = new AtomicLongArray(capacity);
    startedAt = new AtomicLongArray(capacity);
    try {
      workers.addAll(startWorkers(db, name, workerCount, prefix, startedAt));
      produce(
          inbox, "w-", rate, null, new AtomicLong(), 0, () -> false, rate, System.nanoTime(), 0, 1);
      t0 = System.nanoTime();
      sampler = startSampler(db, name, samples, stopSampler);
      for (int p = 0; p < producerCount; p++) {
        AtomicLong sent = new AtomicLong(p);
        int offset = p;
        Thread producer =
            new Thread(
                () -> {
                  try {
                    produce(
                        inbox,
                        prefix,
                        rate,
                        committedAt,
                        sent,
                        capacity,
                        stopProducer::get,
                        0,
                        t0,
                        offset,
                        producerCount);
                  } catch (Throwable e) {
                    producerFailure.set(e);
                  }
                },
                name + "-producer-" + p);
        producer.setDaemon(true);
        next.add(sent);
        producers.add(producer);
      }
      producers.forEach(Thread::start);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Stops the producers, waits at most {@code drainSeconds} for the handlers of what they produced
   * and stops the sampler; returns n, the messages 0..n-1 all sent (a few above may be too).
   */
  int finish(long drainSeconds) throws InterruptedException {
    stopProducer.set(true);
    for (Thread producer : producers) {
      producer.join(TimeUnit.SECONDS.toMillis(30));
    }
    if (producerFailure.get() != null) {
      throw new IllegalStateException("producer failed", producerFailure.get());
    }
    int n = (int) next.stream().mapToLong(AtomicLong::get).min().orElse(0);
    awaitHandled(startedAt, n, drainSeconds);
    stopSampler.set(true);
    sampler.join(5_000);
    return n;
  }

  /** {@link HeldXminLoad#reportPhase} over this flow's first {@code n} messages. */
  long reportPhase(Report report, String label, Phase phase, int n) {
    return HeldXminLoad.reportPhase(report, label, phase, committedAt, startedAt, n, samples);
  }

  @Override
  public void close() {
    stopProducer.set(true);
    stopSampler.set(true);
    try {
      for (Thread producer : producers) {
        producer.join(TimeUnit.SECONDS.toMillis(30));
      }
      if (sampler != null) {
        sampler.join(5_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (InboxWorker worker : workers) {
      worker.stop();
    }
  }

  /**
   * Starts {@code count} workers with default options; each records, for message n of {@code
   * prefix}, when its handler started (System.nanoTime) in {@code startedAt}.
   */
  private static List<InboxWorker> startWorkers(
      BenchDatabase db, String name, int count, String prefix, AtomicLongArray startedAt) {
    List<InboxWorker> workers = new ArrayList<>();
    for (int w = 0; w < count; w++) {
      InboxWorker worker =
          PostgresInboxWorker.builder(db.database.dataSource(), WorkerOptions.builder(name).build())
              .workerId(name + "-" + w)
              .batchHandler(
                  (batch, tx) -> {
                    long now = System.nanoTime();
                    for (InboxMessage m : batch) {
                      String id = m.eventId();
                      if (id.startsWith(prefix)) {
                        startedAt.compareAndSet(
                            Integer.parseInt(id, prefix.length(), id.length(), 10), 0, now);
                      }
                    }
                    return BatchResult.allProcessed();
                  })
              .build();
      worker.start();
      workers.add(worker);
    }
    return workers;
  }

  /** Waits at most {@code seconds} for the handlers of messages 0..n-1 to have started. */
  private static void awaitHandled(AtomicLongArray startedAt, int n, long seconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    int next = 0;
    while (System.nanoTime() < deadline) {
      while (next < n && startedAt.get(next) != 0) {
        next++;
      }
      if (next == n) {
        return;
      }
      Thread.sleep(10);
    }
  }
}
