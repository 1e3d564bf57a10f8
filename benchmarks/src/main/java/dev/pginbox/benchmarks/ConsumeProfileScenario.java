package dev.pginbox.benchmarks;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the time of the plain consume path goes (issue 16, item 4): one worker drains a backlog of
 * 100,000 with a no-op handler at batch 100 and 1,000, and the drain is split into what the
 * client's JVM and the server's processes spent on CPU, the WAL written and the transactions, per
 * message. The server's CPU is read from /proc (every PostgreSQL process: the backends, including
 * the worker's that exit within the drain, plus WAL writer, checkpointer and autovacuum), so that
 * column needs the server on this machine and /proc readable ("-" otherwise). Each drain starts
 * after VACUUM ANALYZE and CHECKPOINT; the worker's start is outside the timed window.
 */
final class ConsumeProfileScenario {

  private ConsumeProfileScenario() {}

  static void run(Report report, int runs, double scale) throws Exception {
    report.section("Consume, one worker: where the time goes (per message, median of runs)",
        "| batch | messages | messages/s | wall us | client CPU us | server CPU us | WAL bytes | transactions per batch "
            + "| load average after |");
    BenchDatabase db = BenchDatabase.create("consume_profile");
    PostgresInboxManager.create(db.dataSource).createInbox("profile");
    CpuClock cpu = CpuClock.of(db);
    for (int batch : new int[] {100, 1000}) {
      int messages = (int) (scale * 100_000);
      Measurements rate = new Measurements();
      Measurements client = new Measurements();
      Measurements server = new Measurements();
      Measurements wal = new Measurements();
      Measurements transactions = new Measurements();
      for (int run = -1; run < runs; run++) {
        Sample s = drain(db, cpu, batch, messages);
        if (run >= 0) {
          rate.add(messages / s.seconds());
          client.add(s.clientCpuNanos() / 1e3 / messages);
          server.add(s.serverCpuNanos() / 1e3 / messages);
          wal.add((double) s.walBytes() / messages);
          transactions.add(s.transactions() / Math.ceil((double) messages / batch));
        }
      }
      report.row(batch, String.format("%,d", messages), String.format("%,.0f", rate.median()),
          String.format("%.2f", 1e6 / rate.median()), String.format("%.2f", client.median()),
          server.median() < 0 ? "-" : String.format("%.2f", server.median()),
          String.format("%.0f", wal.median()), String.format("%.2f", transactions.median()), LoadAverage.now());
    }
  }

  private record Sample(double seconds, long clientCpuNanos, long serverCpuNanos, long walBytes, long transactions) {}

  private static Sample drain(BenchDatabase db, CpuClock cpu, int batch, int messages) throws Exception {
    db.execute("TRUNCATE inbox.profile");
    db.execute(("INSERT INTO inbox.profile (event_id, event_type, source, aggregate_id, payload) "
        + "SELECT 'm' || g, 'order.placed', 'bench', 'agg-' || (g %% 1000), '%s' FROM generate_series(1, %d) g")
        .formatted(Payloads.PAYLOAD, messages));
    db.execute("VACUUM ANALYZE inbox.profile");
    db.execute("CHECKPOINT");
    CountDownLatch drained = new CountDownLatch(1);
    AtomicLong handled = new AtomicLong();
    WorkerOptions options = WorkerOptions.builder("profile")
        .batchSize(batch)
        .pollInterval(Duration.ofMillis(100))
        .retention(false)
        .build();
    InboxWorker worker = PostgresInboxWorker.builder(db.database.dataSource(), options)
        .batchHandler((claimed, tx) -> {
          if (handled.addAndGet(claimed.size()) >= messages) {
            drained.countDown();
          }
          return BatchResult.allProcessed();
        })
        .build();
    // Started paused by a lock on the table: the timed window holds the drain, not the start.
    long walBefore;
    long txBefore;
    CpuClock.Reading cpuBefore;
    long begin;
    try (var hold = db.dataSource.getConnection()) {
      hold.setAutoCommit(false);
      hold.createStatement().execute("LOCK TABLE inbox.profile IN EXCLUSIVE MODE");
      worker.start();
      Thread.sleep(500); // the worker's connections open and its first claim waits on the lock
      walBefore = db.count("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
      txBefore = transactions(db);
      cpuBefore = cpu.read();
      begin = System.nanoTime();
      hold.rollback();
    }
    try {
      if (!drained.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("backlog not drained: " + handled.get() + " of " + messages);
      }
    } finally {
      worker.stop(); // returns once the last batch has committed
    }
    long end = System.nanoTime();
    CpuClock.Reading stopped = cpu.read(); // the client's part is complete now
    if (db.count("SELECT count(*) FROM inbox.profile WHERE processed_at IS NULL") > 0) {
      throw new IllegalStateException("messages left unprocessed after the drain");
    }
    long walAfter = db.count("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
    // The worker's backends exit just after stop(): their CPU reaches the postmaster's cutime once
    // it has reaped them, and their statistics arrive as they exit.
    Thread.sleep(1_000);
    CpuClock.Reading reaped = cpu.read(); // and the server's now
    long txAfter = transactions(db);
    return new Sample((end - begin) / 1e9, stopped.since(cpuBefore).clientNanos(),
        reaped.since(cpuBefore).serverNanos(), walAfter - walBefore, txAfter - txBefore);
  }

  private static long transactions(BenchDatabase db) {
    return db.count("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()");
  }
}
