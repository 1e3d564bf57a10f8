package dev.pginbox.benchmarks;

import static dev.pginbox.benchmarks.HeldXminLoad.sleepUntil;

import dev.pginbox.benchmarks.HeldXminLoad.Phase;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A steady flow for an hour with retention on: does anything drift? The producer and workers of
 * {@link HeldXminScenario} (one message per transaction at a steady rate, {@link
 * dev.pginbox.inbox.postgres.PostgresInboxWorker}s with default options, so the elected one runs
 * the retention sweep once a minute) on an inbox ordered by {@code seq} over 1,000 aggregates, with
 * nothing holding the horizon. The inbox's processed retention is cut to {@code soak.retention}
 * seconds through its catalog row (the API counts it in whole hours), so that retention deletes
 * from the first minutes on and the table should stop growing once it does. One row per window of
 * the run: the rates, the largest backlog, the latency from the producer's commit to the handler's
 * start, the dead tuples and the inbox's total size at the window's end.
 *
 * <p>Parameters (system properties, defaults in brackets; durations in seconds): {@code soak.rate}
 * [1000] messages/s, {@code soak.producers} [1] (threads sending them), {@code soak.workers} [2],
 * {@code soak.duration} [3600, times {@code --scale}, at least 120], {@code soak.window} [a sixth
 * of the duration], {@code soak.retention} [600].
 */
final class SoakScenario {

  private static final long DRAIN_SECONDS = 60;

  private SoakScenario() {}

  static void run(Report report, double scale) throws Exception {
    int rate = Integer.getInteger("soak.rate", 1000);
    int producers = Integer.getInteger("soak.producers", 1);
    int workerCount = Integer.getInteger("soak.workers", 2);
    int duration =
        Integer.getInteger("soak.duration", (int) Math.max(120, Math.round(3600 * scale)));
    int window = Integer.getInteger("soak.window", Math.max(10, duration / 6));
    int retention = Integer.getInteger("soak.retention", 600);
    if (rate < 1
        || producers < 1
        || workerCount < 1
        || duration < 1
        || window < 1
        || retention < 1) {
      throw new IllegalArgumentException("soak.* settings must be positive");
    }
    report.section(
        String.format(
            Locale.ROOT,
            "Soak: %,d msg/s (one per transaction, %d producers), %d workers (batch 100), ordered"
                + " by seq, %d s, processed retention %d s",
            rate,
            producers,
            workerCount,
            duration,
            retention),
        "| inbox | window | produced msg/s | handled msg/s | max backlog | latency p50 | p99 | max "
            + "| dead tuples at end | size at end (MiB) |");
    BenchDatabase db = BenchDatabase.create("soak");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    String name = "soak";
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name);
    db.execute(
        "UPDATE inbox.inbox_config SET processed_retention = make_interval(secs => "
            + retention
            + ") WHERE inbox_name = 'soak'");

    try (SteadyFlow flow =
        new SteadyFlow(db, inbox, name, rate, producers, workerCount, duration)) {
      long t0 = flow.t0;
      long end = t0 + TimeUnit.SECONDS.toNanos(duration);
      sleepUntil(end);
      int n = flow.finish(DRAIN_SECONDS);
      long unhandled = 0;
      for (long from = t0; from < end; from += TimeUnit.SECONDS.toNanos(window)) {
        long to = Math.min(end, from + TimeUnit.SECONDS.toNanos(window));
        String label =
            window % 60 == 0
                ? String.format(
                    Locale.ROOT,
                    "%d-%d min",
                    TimeUnit.NANOSECONDS.toMinutes(from - t0),
                    TimeUnit.NANOSECONDS.toMinutes(to - t0))
                : String.format(
                    Locale.ROOT,
                    "%d-%d s",
                    TimeUnit.NANOSECONDS.toSeconds(from - t0),
                    TimeUnit.NANOSECONDS.toSeconds(to - t0));
        unhandled += flow.reportPhase(report, name, new Phase(label, from, to), n);
      }
      flow.reportPhase(report, name, new Phase("whole run", t0, end), n);
      report.line(
          String.format(
              Locale.ROOT,
              "Rows in the inbox at the end: %,d (%,d produced; %,d never handled within %d s)",
              db.count("SELECT count(*) FROM inbox.soak"),
              n,
              unhandled,
              DRAIN_SECONDS));
    }
  }
}
