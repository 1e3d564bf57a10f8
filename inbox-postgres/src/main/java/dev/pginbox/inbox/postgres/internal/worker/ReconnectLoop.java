package dev.pginbox.inbox.postgres.internal.worker;

import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one long-lived connection of a worker thread (the listener's, the coordinator's) alive:
 * opens it, runs the thread's session on it, and after a connection failure retries with capped
 * exponential backoff until the run stops. A session that returns normally ends the loop.
 */
final class ReconnectLoop {

  /** The thread's work on one connection; it calls {@code connected.run()} once it is ready. */
  interface Session {
    void run(WorkerConnection connection, Runnable connected)
        throws SQLException, InterruptedException;
  }

  private static final Logger LOG = LoggerFactory.getLogger(ReconnectLoop.class);

  private ReconnectLoop() {}

  /**
   * @param reportsState whether this connection's losses are the ones the application's listener
   *     hears about (the LISTEN connection, or the coordinator's in poll-only mode)
   */
  static void run(
      RunControl run, WorkerContext ctx, String role, boolean reportsState, Session session) {
    Backoff backoff =
        new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
    try {
      while (!run.stopping()) {
        WorkerConnection wc = null;
        try {
          wc = WorkerConnection.open(ctx.jdbi(), ctx.inbox(), false, role);
          run.opened(wc);
          session.run(
              wc,
              () -> {
                backoff.reset();
                ctx.events().connected(reportsState);
              });
          return;
        } catch (SQLException e) {
          if (run.stopping()) {
            return;
          }
          if (SqlStates.isStandby(e)) {
            Standby.refused(ctx, role, e);
            run.sleep(Standby.RETRY);
            continue;
          }
          Duration delay = backoff.next();
          String state = e.getSQLState();
          if (SqlStates.isEnvironmental(state)) {
            ctx.events().refused(role, state, e, delay);
            run.sleep(delay);
            continue;
          }
          LOG.warn(
              "inbox {}: {} connection failed ({}); retrying in {} ms",
              ctx.inbox(),
              role,
              SqlStates.describe(e),
              delay.toMillis());
          ctx.events().connectionLost(e, delay, reportsState);
          run.sleep(delay);
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
}
