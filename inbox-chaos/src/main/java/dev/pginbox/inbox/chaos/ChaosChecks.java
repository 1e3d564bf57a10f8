package dev.pginbox.inbox.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Reads the outcome of a run from the database: exactly once, nothing lost, order kept. */
final class ChaosChecks {

  long stored;
  long effects;
  long distinctEffects;
  long unprocessed;
  long deadLetters;
  long outOfOrder;
  long missing;

  static ChaosChecks read(Connection c, String inbox) throws SQLException {
    ChaosChecks k = new ChaosChecks();
    k.stored = count(c, "SELECT count(*) FROM inbox." + inbox);
    k.unprocessed = count(c, "SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL");
    k.deadLetters = count(c, "SELECT count(*) FROM inbox." + inbox + "_dlq");
    k.effects = count(c, "SELECT count(*) FROM chaos_effects");
    k.distinctEffects = count(c, "SELECT count(DISTINCT event_id) FROM chaos_effects");
    k.missing =
        count(
            c,
            "SELECT count(*) FROM inbox."
                + inbox
                + " m WHERE NOT EXISTS (SELECT 1 FROM chaos_effects e WHERE e.event_id = m.event_id)");
    // Effects of one aggregate are numbered in the order they were applied (id): versions must
    // run 1, 2, 3, ... with no gap, repeat or inversion.
    k.outOfOrder =
        count(
            c,
            "SELECT count(*) FROM (SELECT version, lag(version, 1, 0) OVER"
                + " (PARTITION BY aggregate_id ORDER BY id) AS previous FROM chaos_effects) e"
                + " WHERE version <> previous + 1");
    return k;
  }

  List<String> violations(int messages) {
    List<String> v = new ArrayList<>();
    if (stored != messages) {
      v.add("the inbox holds " + stored + " messages, " + messages + " were sent");
    }
    if (effects != distinctEffects) {
      v.add((effects - distinctEffects) + " messages were applied more than once");
    }
    if (missing > 0 || distinctEffects != messages) {
      v.add(missing + " stored messages were never applied (" + distinctEffects + " applied)");
    }
    if (unprocessed > 0) {
      v.add(unprocessed + " messages are still unprocessed (" + deadLetters + " dead letters)");
    }
    if (outOfOrder > 0) {
      v.add(outOfOrder + " effects broke their aggregate's order");
    }
    return v;
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
