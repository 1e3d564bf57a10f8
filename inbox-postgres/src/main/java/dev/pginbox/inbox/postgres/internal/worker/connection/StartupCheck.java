package dev.pginbox.inbox.postgres.internal.worker.connection;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * What start() checks before any thread runs, so that a mistake in the set-up fails the start with
 * a clear exception instead of being retried every backoff forever: the inbox exists, and the
 * database accepts the worker's connection settings and credentials. A database that is merely
 * unreachable (down, restarting, a network hiccup) does not fail the start: the check throws the
 * {@link SQLException}, and the worker starts, runs the check again with its reconnect backoff and
 * chooses how to claim (on a single server or shard by shard) once the database answers.
 *
 * <p>The check's connection is the first processor's: opened as the processor opens its own and
 * handed over idle, so a start costs no connection more than the worker keeps.
 */
public final class StartupCheck {

  private StartupCheck() {}

  /**
   * What the check found: the connection for the first processor (null: none handed over) and
   * whether the inbox is distributed (Citus), which its worker claims shard by shard.
   */
  public record Checked(WorkerConnection connection, boolean distributed) {}

  /**
   * Returns the connection it checked on, idle, for the first processor (null when {@code handOver}
   * is false: the application's boundary gives the processors their connections, or when the inbox
   * is distributed), and whether the inbox is distributed.
   *
   * @throws InboxException a mistake trying again cannot fix ({@link InboxNotFoundException} for a
   *     missing inbox)
   * @throws SQLException the database did not answer; trying again may work
   */
  public static Checked verify(
      Jdbi jdbi, String inbox, Duration processingTimeout, boolean handOver) throws SQLException {
    WorkerConnection wc = null;
    boolean handedOver = false;
    try {
      // The first processor's connection.
      wc = DedicatedConnection.open(jdbi, inbox, processingTimeout);
      NamedStatement ps = wc.statement(WorkerSql.INBOX_CONFIG).setString("inbox", inbox);
      boolean exists;
      try (ResultSet rs = ps.executeQuery()) {
        exists = rs.next();
      }
      boolean distributed = exists && distributed(wc, inbox);
      wc.connection().rollback();
      if (!exists) {
        throw new InboxNotFoundException(
            "inbox " + inbox + " does not exist: create it before starting its worker",
            inbox,
            null);
      }
      handedOver = handOver && !distributed;
      return new Checked(handedOver ? wc : null, distributed);
    } catch (SQLException e) {
      if (isPermanent(e)) {
        throw new InboxException(
            "the worker of inbox "
                + inbox
                + " cannot start: "
                + e.getMessage()
                + " (SQLSTATE "
                + e.getSQLState()
                + ")",
            inbox,
            null,
            e,
            e.getSQLState(),
            false);
      }
      throw e;
    } finally {
      if (wc != null && !handedOver) {
        wc.close();
      }
    }
  }

  /** Whether {@code inbox} is distributed (Citus), read on {@code wc}, a coordinator connection. */
  public static boolean distributed(WorkerConnection wc, String inbox) throws SQLException {
    try (ResultSet rs =
        wc.statement(WorkerSql.INBOX_DISTRIBUTED).setString("inbox", inbox).executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /**
   * Whether {@code inbox} is distributed, read through {@code handle} on the coordinator: the
   * statement of {@link #distributed(WorkerConnection, String)}, for the manager to ask before a
   * worker exists. False for an inbox that does not exist.
   */
  public static boolean distributed(Handle handle, String inbox) {
    return handle
        .createQuery(SqlFiles.get(WorkerConnection.class, WorkerSql.INBOX_DISTRIBUTED.fileName()))
        .bind("inbox", inbox)
        .mapTo(Boolean.class)
        .findOne()
        .orElse(false);
  }

  /**
   * Mistakes that trying again cannot fix: refused credentials (class 28), a database that does not
   * exist (3D000), missing privileges or objects (see {@link SqlStates#isEnvironmental}), and a
   * connection the driver refused to even attempt (class 08 without an I/O cause: an invalid {@code
   * sslmode}, an unknown parameter).
   */
  static boolean isPermanent(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return false;
    }
    if (state.startsWith("08")) {
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        if (t instanceof IOException) {
          return false;
        }
      }
      return state.equals("08001") || state.equals("08004") || state.equals("08P01");
    }
    // Resources (53), system errors (58) and a standby (25006) may come right by themselves.
    return SqlStates.isEnvironmental(state)
        && !state.startsWith("53")
        && !state.startsWith("58")
        && !state.equals("25006");
  }
}
