package dev.pginbox.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Scenario 5: inbox_health and inbox_status on an inbox of N rows, a third each pending, processed
 * and dead.
 */
final class OperatorFunctionsScenario {

  private static final int CALLS = 200;

  static void run(Report report, int[] sizes) throws SQLException {
    report.section("Operator functions (latency per call, " + CALLS + " calls after warm-up)",
        "| rows | function | p50 | p99 | max |");
    for (int rows : sizes) {
      BenchDatabase db = BenchDatabase.create("ops_" + rows);
      db.execute("SELECT inbox.create_inbox('ops')");
      db.execute("""
          INSERT INTO inbox.ops (event_id, event_type, aggregate_id, payload, received_at, processed_at, retry_count)
          SELECT 'e' || g, 'type' || (g %% 7), 'agg' || (g %% 1000), '{"n": 1}',
                 now() - make_interval(secs => (%d - g) / 100.0),
                 CASE WHEN g %% 3 = 1 THEN now() - make_interval(secs => (%d - g) / 200.0) END,
                 CASE WHEN g %% 3 = 2 THEN 3 ELSE 0 END
          FROM generate_series(1, %d) AS g""".formatted(rows, rows, rows));
      db.execute("VACUUM ANALYZE inbox.ops");
      for (String function : new String[] {"inbox_health", "inbox_status"}) {
        LatencyRecorder latency = time(db, "SELECT inbox." + function + "('ops')");
        report.row(String.format("%,d", rows), function, ms(latency.percentileMillis(50)),
            ms(latency.percentileMillis(99)), ms(latency.maxMillis()));
      }
    }
  }

  private static LatencyRecorder time(BenchDatabase db, String sql) throws SQLException {
    LatencyRecorder latency = new LatencyRecorder();
    try (Connection c = db.dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < CALLS * 2; i++) {
        long start = System.nanoTime();
        try (ResultSet r = ps.executeQuery()) {
          r.next();
        }
        if (i >= CALLS) {
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
