package dev.pginbox.benchmarks;

import static dev.pginbox.benchmarks.HeldXminLoad.sleepUntil;

import dev.pginbox.benchmarks.HeldXminLoad.Phase;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The Java worker consuming a steady flow while a long REPEATABLE READ transaction holds the
 * database's xmin horizon back (the Java counterpart of benchmarks/held-xmin.sh): while one old
 * snapshot is open, vacuum removes nothing and every claim steps over the messages claimed since
 * the snapshot was taken.
 *
 * <p>A producer sends one message per transaction ({@code inbox.send}) at a steady rate (one tick
 * every 1/rate s, like {@link EndToEndScenario}'s producer), {@code workers} {@link
 * PostgresInboxWorker}s with default options (batch 100, LISTEN/NOTIFY) consume it, for three
 * phases:
 *
 * <ul>
 *   <li>clean: nothing holds the horizon;
 *   <li>held: a separate connection (autocommit off, REPEATABLE READ) has run {@code SELECT
 *       count(*) FROM pg_class} and keeps its transaction open; it rolls back at the phase's end;
 *   <li>after: the horizon is free again.
 * </ul>
 *
 * Each message belongs to the phase its producer's commit returned in; its latency runs from that
 * commit to its handler's start. A sampler reads once a second the pending backlog, n_dead_tup of
 * pg_stat_user_tables and pg_total_relation_size of the inbox. One row per phase (and the last
 * third of the held phase alone, so the growth is visible), for a plain inbox, then an ordered one
 * (aggregate ids spread over 1,000 values).
 *
 * <p>Parameters (system properties, defaults in brackets; durations in seconds, multiplied by
 * {@code --scale} and no shorter than 10 / 30 / 10 s): {@code held.rate} [1000] messages/s, {@code
 * held.producers} [1] (threads sending them; more let commits share a WAL flush), {@code
 * held.workers} [2], {@code held.clean} [60], {@code held.hold} [180], {@code held.after} [60],
 * {@code held.inboxes} [plain,ordered] (which of the two to run), {@code held.sequence} [seq] (the
 * ordered inbox's sequence column: received_at or seq).
 */
final class HeldXminScenario {

  /** How long the workers may take, after the after phase, to handle what is left. */
  private static final long DRAIN_SECONDS = 60;

  private HeldXminScenario() {}

  static void run(Report report, double scale) throws Exception {
    int rate = Integer.getInteger("held.rate", 1000);
    int producers = Integer.getInteger("held.producers", 1);
    int workers = Integer.getInteger("held.workers", 2);
    int clean = seconds("held.clean", 60, 10, scale);
    int hold = seconds("held.hold", 180, 30, scale);
    int after = seconds("held.after", 60, 10, scale);
    if (rate < 1 || producers < 1 || workers < 1) {
      throw new IllegalArgumentException(
          "held.rate, held.producers and held.workers must be positive");
    }
    report.section(
        String.format(
            Locale.ROOT,
            "Held xmin: %,d msg/s (one per transaction, %d producers), %d workers (batch 100), clean %d s, "
                + "held %d s (a REPEATABLE READ transaction open), after %d s "
                + "(latency: commit returned -> handler start), ordered by %s",
            rate,
            producers,
            workers,
            clean,
            hold,
            after,
            System.getProperty("held.sequence", "seq")),
        "| inbox | phase | produced msg/s | handled msg/s | max backlog | latency p50 | p99 | max "
            + "| dead tuples at end | size at end (MiB) |");
    BenchDatabase db = BenchDatabase.create("held_xmin");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    List<String> inboxes = List.of(System.getProperty("held.inboxes", "plain,ordered").split(","));
    String sequence = System.getProperty("held.sequence", "seq");
    for (boolean ordered : new boolean[] {false, true}) {
      if (!inboxes.contains(ordered ? "ordered" : "plain")) {
        continue;
      }
      String name = ordered ? "held_ordered" : "held_plain";
      PostgresInbox inbox = manager.createInbox(name);
      if (ordered) {
        manager.enableOrdering(name, "aggregate_id", sequence);
      }
      measure(report, db, inbox, name, rate, producers, workers, clean, hold, after);
    }
  }

  private static int seconds(String property, int atScaleOne, int least, double scale) {
    String value = System.getProperty(property);
    if (value != null) {
      return Integer.parseInt(value);
    }
    return (int) Math.max(least, Math.round(atScaleOne * scale));
  }

  private static void measure(
      Report report,
      BenchDatabase db,
      PostgresInbox inbox,
      String name,
      int rate,
      int producers,
      int workerCount,
      int clean,
      int hold,
      int after)
      throws Exception {
    Connection holder = null;
    try (SteadyFlow flow =
        new SteadyFlow(db, inbox, name, rate, producers, workerCount, clean + hold + after)) {
      long t0 = flow.t0;
      sleepUntil(t0 + TimeUnit.SECONDS.toNanos(clean));
      holder = db.database.connect();
      holder.setAutoCommit(false);
      holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      long heldFrom = System.nanoTime();
      try (Statement s = holder.createStatement();
          ResultSet r = s.executeQuery("SELECT count(*) FROM pg_class")) {
        r.next();
      }
      sleepUntil(heldFrom + TimeUnit.SECONDS.toNanos(hold));
      holder.rollback();
      long heldTo = System.nanoTime();
      holder.close();
      holder = null;
      long end = heldTo + TimeUnit.SECONDS.toNanos(after);
      sleepUntil(end);
      int n = flow.finish(DRAIN_SECONDS);

      List<Phase> phases =
          List.of(
              new Phase("clean", t0, heldFrom),
              new Phase("held", heldFrom, heldTo),
              new Phase("held, last third", heldTo - (heldTo - heldFrom) / 3, heldTo),
              new Phase("after", heldTo, end));
      long unhandledTotal = 0;
      for (Phase phase : phases) {
        long unhandled = flow.reportPhase(report, name.substring("held_".length()), phase, n);
        if (!phase.name().equals("held, last third")) {
          unhandledTotal += unhandled;
        }
      }
      if (unhandledTotal > 0) {
        report.line(
            String.format(
                "(%s: %,d of %,d messages not handled %d s after the end)",
                name, unhandledTotal, n, DRAIN_SECONDS));
      }
    } finally {
      if (holder != null) {
        try {
          holder.close();
        } catch (SQLException e) {
          // closing ends the transaction either way
        }
      }
    }
  }
}
