package dev.pginbox.inbox.postgres;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A session that claims through {@code claim_<inbox>}, commits each claim unless a transaction is
 * open, and lets its claim floors move between claims (every 20 ms).
 */
final class Claimer implements AutoCloseable {
  final Connection c;
  private final String inbox;

  Claimer(TestDatabase database, String inbox) throws SQLException {
    this.inbox = inbox;
    c = database.connect();
    execute("SET inbox.claim_floor_move_ms = 20");
  }

  List<String> claim(int limit) throws Exception {
    Thread.sleep(25);
    List<String> ids = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement("SELECT event_id FROM inbox.claim_" + inbox + "(?)")) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
    }
    return ids;
  }

  /** Claims until {@code id} comes, at most {@code claims} times; the claims it took. */
  int claimsUntil(String id, int claims) throws Exception {
    for (int i = 1; i <= claims; i++) {
      if (claim(10).contains(id)) {
        return i;
      }
    }
    return -1;
  }

  void execute(String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  String scalar(String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * The entries of index {@code inbox.<index>} (or {@code index} when schema-qualified) that {@code
   * statement}, run in a transaction of its own, read and returned (entries a scan passed over
   * inside the index are not counted).
   */
  long indexEntriesRead(String index, String statement) throws Exception {
    // The transaction's counters include whatever the session has not yet reported: report it.
    execute("SELECT pg_stat_force_next_flush()");
    Thread.sleep(50);
    execute("SELECT 1");
    execute("BEGIN");
    try (Statement s = c.createStatement()) {
      s.executeQuery(statement).close();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT pg_stat_get_xact_tuples_returned('"
                  + (index.contains(".") ? index : "inbox." + index)
                  + "'::regclass)")) {
        rs.next();
        return rs.getLong(1);
      }
    } finally {
      execute("COMMIT");
    }
  }

  @Override
  public void close() throws SQLException {
    c.close();
  }
}
