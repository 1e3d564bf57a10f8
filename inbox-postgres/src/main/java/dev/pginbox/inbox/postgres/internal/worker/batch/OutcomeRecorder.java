package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.postgres.internal.LogText;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records failed attempts with one statement in the caller's transaction, counts them, and logs
 * every message that became a dead letter, once, at WARN.
 */
public final class OutcomeRecorder {

  /**
   * The logger of dead letters, named as before the worker runtime had subpackages: the docs tell
   * applications to look for this name.
   */
  private static final Logger LOG =
      LoggerFactory.getLogger("dev.pginbox.inbox.postgres.internal.worker.OutcomeRecorder");

  private final String inbox;
  private final WorkerEvents events;

  public OutcomeRecorder(String inbox, WorkerEvents events) {
    this.inbox = inbox;
    this.events = events;
  }

  /** Records {@code failures} in the current transaction of {@code store}. */
  void record(BatchStore store, List<Failure> failures) throws SQLException {
    if (failures.isEmpty()) {
      return;
    }
    recorded(store.recordFailures(failures), failures);
  }

  /** Counts what the store recorded for {@code failures} and logs the dead letters. */
  void recorded(List<BatchStore.Recorded> rows, List<Failure> failures) {
    Map<String, Failure> byId = new HashMap<>();
    for (Failure f : failures) {
      byId.put(f.eventId(), f);
    }
    int dead = 0;
    for (BatchStore.Recorded row : rows) {
      if (row.dead()) {
        dead++;
        Failure f = byId.get(row.eventId());
        LOG.warn(
            "inbox {}: message {} is a dead letter: {}",
            inbox,
            LogText.safe(row.eventId()),
            f == null ? null : LogText.safe(f.error()));
      }
    }
    events.failuresRecorded(rows.size(), dead);
  }
}
