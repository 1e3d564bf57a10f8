package dev.pginbox.inbox.testing;

import dev.pginbox.inbox.InboxNames;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Runs workers synchronously and tells what became of messages, for tests:
 *
 * <pre>{@code
 * probe.drain(worker);                                   // handle every message due now
 * probe.message("orders", "evt-1").assertProcessed();
 * probe.message("orders", "evt-2").assertRetrying(1);
 * probe.drainIncludingRetries(worker, "orders");         // retries without waiting out the backoff
 * probe.message("orders", "evt-2").assertDeadLetter("out of stock");
 * }</pre>
 */
public final class InboxProbe {

  /** A drain that claims more batches than this has a handler that never finishes its work. */
  public static final int MAX_BATCHES = 10_000;

  private final DataSource dataSource;

  public InboxProbe(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * Runs {@link InboxWorker#runOnce()} in this thread until a claim finds nothing due; returns how
   * many messages were claimed. Messages backing off after a failure are not due yet.
   */
  public int drain(InboxWorker worker) {
    int total = 0;
    for (int batches = 0; batches < MAX_BATCHES; batches++) {
      int claimed = worker.runOnce();
      if (claimed == 0) {
        return total;
      }
      total += claimed;
    }
    throw new AssertionError("the worker still claimed messages after " + MAX_BATCHES + " batches");
  }

  /**
   * Drains, makes the inbox's backing-off messages due at once, and drains again until nothing is
   * left to retry: every message ends processed or a dead letter. Returns the messages claimed.
   */
  public int drainIncludingRetries(InboxWorker worker, String inbox) {
    int total = drain(worker);
    for (int rounds = 0; rounds < MAX_BATCHES; rounds++) {
      // A backoff that ran out on its own is due already: only a round that made nothing due and
      // claimed nothing ends the drain.
      int madeDue = makeRetriesDue(inbox);
      int claimed = drain(worker);
      total += claimed;
      if (madeDue == 0 && claimed == 0) {
        return total;
      }
    }
    throw new AssertionError(
        "inbox " + inbox + " still had retries after " + MAX_BATCHES + " rounds");
  }

  /** Sets {@code next_attempt_at = now()} on backing-off messages; returns how many. */
  public int makeRetriesDue(String inbox) {
    String sql = SqlFiles.get(InboxProbe.class, "make_retries_due", table(inbox));
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot make the retries of inbox " + inbox + " due", e);
    }
  }

  /** The current state of one message of a managed inbox. */
  public MessageState message(String inbox, String eventId) {
    String sql = SqlFiles.get(InboxProbe.class, "message_state", table(inbox));
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, inbox);
      ps.setString(2, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("inbox " + inbox + " has no message " + eventId);
        }
        return new MessageState(
            inbox,
            eventId,
            rs.getBoolean("processed"),
            rs.getInt("retry_count"),
            rs.getString("error"),
            rs.getInt("max_retries"));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read message " + eventId + " of inbox " + inbox, e);
    }
  }

  private static Map<String, String> table(String inbox) {
    // The name passed InboxNames (a-z, 0-9, _) and is quoted all the same.
    return Map.of("table", "\"" + InboxNames.requireValid(inbox) + "\"");
  }
}
