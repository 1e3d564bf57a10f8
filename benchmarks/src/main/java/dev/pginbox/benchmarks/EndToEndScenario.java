package dev.pginbox.benchmarks;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario 3: a producer at a steady rate (a tick every millisecond, rate/1000 messages per tick in
 * one statement), one worker woken by LISTEN/NOTIFY; latency from the producer's commit returning to
 * the handler starting on the message (the producer's own commit time is excluded).
 *
 * <p>Beside the percentiles it reports what may explain the tail: the messages slower than {@value
 * #SLOW_MILLIS} ms and how many of them waited across a garbage collection of this JVM (producer
 * and worker), the collections in the window and the longest, the server's checkpoints in the
 * window, and the hiccups of this JVM (how late a thread asking to sleep 1 ms woke up: {@link
 * Hiccups}), which is what scheduling alone adds.
 */
final class EndToEndScenario {

  static final int SLOW_MILLIS = 5;

  static void run(Report report, double scale) throws Exception {
    report.section("End-to-end latency, LISTEN/NOTIFY (commit returned -> handler start)",
        "| rate (msg/s) | processors | duration | p50 | p99 | p99.9 | max | delivered "
            + "| > " + SLOW_MILLIS + " ms (across a GC) | GCs (longest) | checkpoints | hiccups |");
    BenchDatabase db = BenchDatabase.create("e2e");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    for (int rate : new int[] {1_000, 10_000}) {
      measure(report, db, manager, rate, 1, false, scale);
      measure(report, db, manager, rate, 1, true, scale);
      measure(report, db, manager, rate, 2, false, scale);
    }
  }

  private static void measure(Report report, BenchDatabase db, PostgresInboxManager manager, int rate,
      int processors, boolean claimAhead, double scale) throws Exception {
    String name = "e2e_" + rate + "_" + processors + (claimAhead ? "_ahead" : "");
    PostgresInbox inbox = manager.createInbox(name);
    ConcurrentHashMap<String, Long> committedAt = new ConcurrentHashMap<>();
    ConcurrentHashMap<String, Long> startedAt = new ConcurrentHashMap<>();
    InboxWorker worker = PostgresInboxWorker.builder(db.database.dataSource(),
            WorkerOptions.builder(name).batchSize(1000).concurrency(processors).claimAhead(claimAhead).retention(false)
                .build())
        .batchHandler((batch, tx) -> {
          long now = System.nanoTime();
          for (InboxMessage m : batch) {
            startedAt.put(m.eventId(), now);
          }
          return BatchResult.allProcessed();
        })
        .build();
    worker.start();
    try {
      int seconds = (int) Math.max(3, 15 * scale);
      int perTick = rate / 1000;
      // One second of warm-up, not recorded.
      produce(inbox, new ConcurrentHashMap<>(), perTick, 1, "w");
      long checkpointsBefore = db.checkpoints();
      long epochOffsetNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
      try (GcPauses gc = new GcPauses();
          Hiccups hiccups = new Hiccups()) {
        produce(inbox, committedAt, perTick, seconds, "m");
        while (!startedAt.keySet().containsAll(committedAt.keySet())) {
          Thread.sleep(10);
        }
        LatencyRecorder latency = new LatencyRecorder();
        long slow = 0;
        long slowAcrossGc = 0;
        for (var e : committedAt.entrySet()) {
          long committed = e.getValue();
          long started = startedAt.get(e.getKey());
          // A handler may start before the producer has read its own commit acknowledgement: 0.
          latency.recordNanos(started - committed);
          if (started - committed > SLOW_MILLIS * 1_000_000L) {
            slow++;
            if (gc.overlaps((committed + epochOffsetNanos) / 1_000_000L, (started + epochOffsetNanos) / 1_000_000L)) {
              slowAcrossGc++;
            }
          }
        }
        List<GcPauses.Pause> pauses = gc.pauses();
        long longest = pauses.stream().mapToLong(GcPauses.Pause::millis).max().orElse(0);
        report.row(String.format("%,d", rate), processors + (claimAhead ? ", claiming ahead" : ""), seconds + " s", ms(latency.percentileMillis(50)),
            ms(latency.percentileMillis(99)), ms(latency.percentileMillis(99.9)), ms(latency.maxMillis()),
            latency.count(), slow + " (" + slowAcrossGc + ")", pauses.size() + " (" + longest + " ms)",
            db.checkpoints() - checkpointsBefore, hiccups.summary());
      }
    } finally {
      worker.stop();
    }
  }

  private static void produce(PostgresInbox inbox, ConcurrentHashMap<String, Long> committedAt, int perTick,
      int seconds, String prefix) {
    long start = System.nanoTime();
    long ticks = seconds * 1000L;
    for (long tick = 0; tick < ticks; tick++) {
      long due = start + tick * 1_000_000L;
      for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
      List<NewMessage> batch = Payloads.batch(prefix + "-", tick * perTick, perTick, 1000);
      if (perTick == 1) {
        inbox.send(batch.get(0));
      } else {
        inbox.sendAll(batch);
      }
      long committed = System.nanoTime();
      for (NewMessage m : batch) {
        committedAt.put(m.eventId(), committed);
      }
    }
  }

  private static String ms(double millis) {
    return String.format(java.util.Locale.ROOT, "%.2f ms", millis);
  }
}
