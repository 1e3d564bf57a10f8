package dev.pginbox.inbox.postgres.internal.worker;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Records failed attempts with one {@code inbox.record_failures} call, in the caller's transaction.
 */
final class FailureRecorder {

  private FailureRecorder() {}

  /** Returns how many of the messages became dead letters. */
  static int record(
      WorkerConnection wc, String inbox, List<Failure> failures, WorkerMetrics metrics)
      throws SQLException {
    if (failures.isEmpty()) {
      return 0;
    }
    int n = failures.size();
    String[] ids = new String[n];
    String[] errors = new String[n];
    String[] delays = new String[n];
    Boolean[] dead = new Boolean[n];
    for (int i = 0; i < n; i++) {
      Failure f = failures.get(i);
      ids[i] = f.eventId();
      errors[i] = f.error();
      delays[i] = f.delay() == null ? null : (f.delay().toNanos() / 1000) + " microseconds";
      dead[i] = f.dead();
    }
    PreparedStatement ps = wc.statement("record_failures");
    ps.setString(1, inbox);
    ps.setArray(2, wc.connection().createArrayOf("text", ids));
    ps.setArray(3, wc.connection().createArrayOf("text", errors));
    ps.setArray(4, wc.connection().createArrayOf("text", delays));
    ps.setArray(5, wc.connection().createArrayOf("bool", dead));
    int recorded = 0;
    int deadCount = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        recorded++;
        if ("dead".equals(rs.getString(2))) {
          deadCount++;
        }
      }
    }
    metrics.failed.increment(recorded);
    metrics.deadLettered.increment(deadCount);
    return deadCount;
  }
}
