package dev.pginbox.inbox.postgres.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One physical connection of a worker, with its Jdbi handle (what a handler unwraps) and its
 * prepared statements kept for the connection's life, so the hot path reuses server-side plans.
 */
final class WorkerConnection implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerConnection.class);

  private final Handle handle;
  private final Connection connection;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final String inbox;
  private final int backendPid;

  private WorkerConnection(Handle handle, String inbox) throws SQLException {
    this.handle = handle;
    this.connection = handle.getConnection();
    this.inbox = inbox;
    this.backendPid = connection.unwrap(PGConnection.class).getBackendPID();
  }

  /**
   * Opens a connection; {@code transactional} = autocommit off (claim transactions). The role shows
   * in pg_stat_activity.application_name as {@code inbox:<inbox>:<role>}, for operators (and
   * tests).
   */
  static WorkerConnection open(Jdbi jdbi, String inbox, boolean transactional, String role)
      throws SQLException {
    Handle handle;
    try {
      handle = jdbi.open();
    } catch (org.jdbi.v3.core.ConnectionException e) {
      throw e.getCause() instanceof SQLException sql
          ? sql
          : new SQLException(e.getMessage(), "08001", e);
    }
    try {
      try (java.sql.Statement s = handle.getConnection().createStatement()) {
        // A bound value is not possible in SET; the name is [a-z0-9_] and the role a constant.
        s.execute("SET application_name = 'inbox:" + inbox + ":" + role + "'");
      }
      handle.getConnection().setAutoCommit(!transactional);
      // Every claim (and the lease guard of the automatic mode) relies on READ COMMITTED: each
      // statement sees what committed before it. A database whose default is REPEATABLE READ or
      // SERIALIZABLE would hand the guard a snapshot older than a lease move.
      handle
          .getConnection()
          .setTransactionIsolation(java.sql.Connection.TRANSACTION_READ_COMMITTED);
      return new WorkerConnection(handle, inbox);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(handle);
      throw e;
    }
  }

  static Jdbi jdbi(DataSource dataSource) {
    Jdbi jdbi = Jdbi.create(dataSource);
    // The worker owns the transaction; a handle closed while one is open (abort, shutdown) is fine.
    jdbi.getConfig(org.jdbi.v3.core.Handles.class).setForceEndTransactions(false);
    return jdbi;
  }

  Connection connection() {
    return connection;
  }

  Handle handle() {
    return handle;
  }

  int backendPid() {
    return backendPid;
  }

  /** The prepared statement of SQL resource {@code name}, prepared once per connection. */
  PreparedStatement statement(String name) throws SQLException {
    PreparedStatement ps = statements.get(name);
    if (ps == null) {
      ps = connection.prepareStatement(Sql.load(name, inbox));
      statements.put(name, ps);
    }
    return ps;
  }

  /** Sends a cancel request for the statement running on this connection (from another thread). */
  void cancel() {
    try {
      connection.unwrap(PGConnection.class).cancelQuery();
    } catch (SQLException | RuntimeException e) {
      LOG.debug("cancel request failed", e);
    }
  }

  /** Closes the socket at once, from any thread: the server rolls back the open transaction. */
  void abort() {
    try {
      connection.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("abort failed", e);
    }
  }

  void rollbackQuietly() {
    try {
      if (!connection.isClosed() && !connection.getAutoCommit()) {
        connection.rollback();
      }
    } catch (SQLException | RuntimeException e) {
      LOG.debug("rollback failed", e);
    }
  }

  @Override
  public void close() {
    rollbackQuietly();
    closeQuietly(handle);
  }

  private static void closeQuietly(Handle handle) {
    try {
      handle.close();
    } catch (RuntimeException e) {
      LOG.debug("closing a connection failed", e);
    }
  }
}
