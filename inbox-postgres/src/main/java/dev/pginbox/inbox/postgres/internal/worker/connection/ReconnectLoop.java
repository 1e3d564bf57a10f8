package dev.pginbox.inbox.postgres.internal.worker.connection;

import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one long-lived connection of a worker thread (the listener's, the coordinator's) alive:
 * opens it, runs the thread's session on it, and after a connection failure retries with capped
 * exponential backoff until the run stops. A session that returns normally ends the loop.
 */
public final class ReconnectLoop {

  /** The thread's work on one connection; it calls {@code connected.run()} once it is ready. */
  public interface Session {
    void run(WorkerConnection connection, Runnable connected)
        throws SQLException, InterruptedException;
  }

  private static final Logger LOG = LoggerFactory.getLogger(ReconnectLoop.class);

  private final Jdbi jdbi;
  private final WorkerOptions options;
  private final WorkerEvents events;

  public ReconnectLoop(Jdbi jdbi, WorkerOptions options, WorkerEvents events) {
    this.jdbi = jdbi;
    this.options = options;
    this.events = events;
  }

  /**
   * @param reportsState whether this connection's losses are the ones the application's listener
   *     hears about (the LISTEN connection, or the coordinator's in poll-only mode)
   */
  public void run(RunControl run, String role, boolean reportsState, Session session) {
    Backoff backoff = new Backoff(options.reconnectInitialDelay(), options.reconnectMaxDelay());
    try {
      while (!run.stopping()) {
        WorkerConnection wc = null;
        try {
          wc = WorkerConnection.open(jdbi, options.inbox(), false, role);
          run.opened(wc);
          session.run(
              wc,
              () -> {
                backoff.reset();
                events.connected(reportsState);
              });
          return;
        } catch (SQLException e) {
          if (run.stopping()) {
            return;
          }
          run.sleep(failed(e, role, reportsState, backoff));
        } finally {
          if (wc != null) {
            run.closed(wc);
            wc.close();
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Reports a failed connection of {@code role} (a standby, a refusal of the database's set-up, or
   * a lost connection) and returns how long to wait before the next attempt.
   */
  public Duration failed(SQLException e, String role, boolean reportsState, Backoff backoff) {
    if (SqlStates.isStandby(e)) {
      Standby.refused(events, options.inbox(), role, e);
      return Standby.RETRY;
    }
    Duration delay = backoff.next();
    String state = e.getSQLState();
    if (SqlStates.isEnvironmental(state)) {
      events.refused(role, state, SqlStates.describe(e), e, delay);
      return delay;
    }
    LOG.warn(
        "inbox {}: {} connection failed ({}); retrying in {} ms",
        options.inbox(),
        role,
        SqlStates.describe(e),
        delay.toMillis());
    events.connectionLost(e, delay, reportsState);
    return delay;
  }
}
