package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.LogText;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records failed attempts with one {@code inbox.record_failures} call in the caller's transaction,
 * counts them, and logs every message that became a dead letter, once, at WARN.
 */
final class OutcomeRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(OutcomeRecorder.class);

  private final String inbox;
  private final WorkerEvents events;

  OutcomeRecorder(String inbox, WorkerEvents events) {
    this.inbox = inbox;
    this.events = events;
  }

  /** Records {@code failures} in the current transaction of {@code wc}. */
  void record(WorkerConnection wc, List<Failure> failures) throws SQLException {
    if (failures.isEmpty()) {
      return;
    }
    PreparedStatement ps = wc.statement("record_failures");
    bind(ps, 1, wc.connection(), failures);
    try (ResultSet rs = ps.executeQuery()) {
      read(rs, failures);
    }
  }

  /**
   * Binds the five parameters of a {@code record_failures} call (inbox, ids, errors, delays, dead)
   * from position {@code first}.
   */
  void bind(PreparedStatement ps, int first, Connection c, List<Failure> failures)
      throws SQLException {
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
    ps.setString(first, inbox);
    ps.setArray(first + 1, c.createArrayOf("text", ids));
    ps.setArray(first + 2, c.createArrayOf("text", errors));
    ps.setArray(first + 3, c.createArrayOf("text", delays));
    ps.setArray(first + 4, c.createArrayOf("bool", dead));
  }

  /** Reads the (event_id, result) rows of a {@code record_failures} call. */
  void read(ResultSet rs, List<Failure> failures) throws SQLException {
    Map<String, Failure> byId = new HashMap<>();
    for (Failure f : failures) {
      byId.put(f.eventId(), f);
    }
    int recorded = 0;
    int dead = 0;
    while (rs.next()) {
      recorded++;
      if ("dead".equals(rs.getString(2))) {
        dead++;
        String id = rs.getString(1);
        Failure f = byId.get(id);
        LOG.warn(
            "inbox {}: message {} is a dead letter: {}",
            inbox,
            LogText.safe(id),
            f == null ? null : LogText.safe(f.error()));
      }
    }
    events.failuresRecorded(recorded, dead);
  }
}
