package dev.pginbox.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Scenario 5: the operator functions on an ordered inbox of N rows, a third each pending, processed
 * and dead, 1,000 aggregates (two thirds of them blocked behind a dead head), one pending message in
 * a hundred backing off, four workers sharing 16 partitions.
 */
final class OperatorFunctionsScenario {

  static void run(Report report, int[] sizes) throws SQLException {
    report.section("Operator functions (latency per call, 10 to 200 calls after as many warm-up calls)",
        "| rows | function | p50 | p99 | max |");
    for (int rows : sizes) {
      BenchDatabase db = BenchDatabase.create("ops_" + rows);
      db.execute("SELECT inbox.create_inbox('ops')");
      db.execute("SELECT inbox.enable_inbox_ordering('ops')");
      db.execute("""
          INSERT INTO inbox.ops (event_id, event_type, aggregate_id, payload, received_at, processed_at, retry_count)
          SELECT 'e' || g, 'type' || (g %% 7), 'agg' || (g %% 1000), '{"n": 1}',
                 now() - make_interval(secs => (%d - g) / 100.0),
                 CASE WHEN g %% 3 = 1 THEN now() - make_interval(secs => (%d - g) / 200.0) END,
                 CASE WHEN g %% 3 = 2 THEN 3 ELSE 0 END
          FROM generate_series(1, %d) AS g""".formatted(rows, rows, rows));
      db.execute("UPDATE inbox.ops SET error = 'timeout after ' || (seq % 977) || ' ms', "
          + "next_attempt_at = CASE WHEN seq % 100 = 0 AND retry_count = 0 THEN now() + interval '1 hour'"
          + " ELSE next_attempt_at END WHERE processed_at IS NULL");
      db.execute("SELECT inbox.worker_heartbeat('ops', 'w' || g, 16, interval '1 hour') FROM generate_series(1, 4) g");
      db.execute("VACUUM ANALYZE inbox.ops");
      String[][] functions = {
          {"SELECT inbox.inbox_health('ops')", "200"},
          {"SELECT inbox.inbox_status('ops')", "10"},
          {"SELECT count(*) FROM inbox.inbox_blocked_aggregates('ops', 50)", "200"},
          {"SELECT n FROM inbox.count_blocked_aggregates('ops')", "50"},
          {"SELECT count(*) FROM inbox.inbox_partition_lag('ops')", "50"},
          {"SELECT count(*) FROM inbox.inbox_workers('ops')", "200"},
          {"SELECT count(*) FROM inbox.inbox_dlq_groups('ops', 50)", "10"},
          {"SELECT count(*) FROM inbox.inbox_dead_letters('ops', NULL, NULL, 50)", "200"},
          {"SELECT count(*) FROM inbox.inbox_throughput('ops', 60)", "50"},
          {"SELECT count(*) FROM inbox.inbox_operator_log('ops', 50)", "200"}};
      for (String[] f : functions) {
        // Scalar functions are selected directly (a count over a subquery would let the planner
        // drop the unused call); set-returning ones are counted.
        LatencyRecorder latency = time(db, f[0], Integer.parseInt(f[1]));
        report.row(String.format("%,d", rows), "`" + f[0].replaceFirst("^SELECT (count\\(\\*\\) FROM |n FROM )?inbox\\.", "") + "`", ms(latency.percentileMillis(50)),
            ms(latency.percentileMillis(99)), ms(latency.maxMillis()));
      }
    }
  }

  private static LatencyRecorder time(BenchDatabase db, String sql, int calls) throws SQLException {
    LatencyRecorder latency = new LatencyRecorder();
    try (Connection c = db.dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < calls * 2; i++) {
        long start = System.nanoTime();
        try (ResultSet r = ps.executeQuery()) {
          r.next();
        }
        if (i >= calls) {
          latency.recordNanos(System.nanoTime() - start);
        }
      }
    }
    return latency;
  }

  private static String ms(double millis) {
    return String.format(java.util.Locale.ROOT, "%.2f ms", millis);
  }
}
