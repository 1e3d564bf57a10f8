package dev.pginbox.inbox.postgres.internal.worker.connection;

import dev.pginbox.inbox.InboxNames;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.ConnectionFactory;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of a worker with the worker's statements ({@link WorkerSql}: files next to this
 * class, {@code <inbox>} the validated inbox name, values bound by name), prepared once and kept
 * for the connection's life so the hot path reuses server-side plans, and the Jdbi handle a handler
 * unwraps. Either opened by the worker (and closed by it) or borrowed from a {@link
 * dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary} for one transaction.
 */
public final class WorkerConnection implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerConnection.class);

  /**
   * How long an idle check, a count or a lease heartbeat waits for its answer: a half-open TCP
   * connection (a peer or a NAT gone without a FIN) would otherwise block it for the kernel's
   * retransmission time, a quarter of an hour.
   */
  public static final Duration SHORT_ANSWER = Duration.ofSeconds(10);

  /**
   * The savepoint each part of a batch's handler work starts with; set here by {@link
   * #claimAndSavepoint} and moved along by InFlightBatch.
   */
  public static final String PART_SAVEPOINT = "inbox_part";

  private static final int PING_TIMEOUT_MILLIS = (int) SHORT_ANSWER.toMillis();

  private final Connection connection;
  private final boolean owned;
  private final Map<String, NamedStatement> statements = new HashMap<>();
  private final String inbox;
  private Handle handle;

  private WorkerConnection(Connection connection, Handle handle, boolean owned, String inbox) {
    this.connection = connection;
    this.handle = handle;
    this.owned = owned;
    this.inbox = InboxNames.requireValid(inbox);
  }

  /**
   * Opens a connection; {@code transactional} = autocommit off (claim transactions). The role shows
   * in pg_stat_activity.application_name as {@code inbox:<inbox>:<role>}, for operators (and
   * tests).
   */
  public static WorkerConnection open(Jdbi jdbi, String inbox, boolean transactional, String role)
      throws SQLException {
    Handle handle;
    try {
      handle = jdbi.open();
    } catch (ConnectionException e) {
      throw e.getCause() instanceof SQLException sql
          ? sql
          : new SQLException(e.getMessage(), "08001", e);
    }
    try {
      Connection c = handle.getConnection();
      try (Statement s = c.createStatement()) {
        // A bound value is not possible in SET; the name is [a-z0-9_] and the role a constant.
        s.execute("SET application_name = 'inbox:" + inbox + ":" + role + "'");
      }
      c.setAutoCommit(!transactional);
      // Every claim (and the lease guard of the automatic mode) relies on READ COMMITTED: each
      // statement sees what committed before it. A database whose default is REPEATABLE READ or
      // SERIALIZABLE would hand the guard a snapshot older than a lease move.
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      return new WorkerConnection(c, handle, true, inbox);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(handle);
      throw e;
    }
  }

  /**
   * Gives up on any answer that takes longer than {@code bound} (the socket's read timeout), so
   * that a statement on a half-open connection fails as a lost connection instead of waiting a
   * quarter of an hour. For the worker's own connections only.
   */
  public WorkerConnection answersWithin(Duration bound) throws SQLException {
    try {
      connection.setNetworkTimeout(
          Runnable::run, (int) Math.min(Integer.MAX_VALUE, Math.max(1, bound.toMillis())));
    } catch (SQLException | RuntimeException e) {
      close();
      throw e;
    }
    return this;
  }

  /** A boundary's connection, for one transaction: closing this leaves it open. */
  public static WorkerConnection borrow(Connection connection, String inbox) {
    return new WorkerConnection(connection, null, false, inbox);
  }

  /** Jdbi for the worker's own connections. */
  public static Jdbi jdbi(javax.sql.DataSource dataSource) {
    Jdbi jdbi = Jdbi.create(dataSource);
    // The worker owns the transaction; a handle closed while one is open (abort, shutdown) is fine.
    jdbi.getConfig(Handles.class).setForceEndTransactions(false);
    return jdbi;
  }

  public Connection connection() {
    return connection;
  }

  /** Whether this is the same physical connection as {@code other} (a boundary may reuse one). */
  public boolean wraps(Connection other) {
    return connection == other;
  }

  /** The Jdbi handle on this connection; on a borrowed one made when first asked for. */
  public Handle handle() {
    if (handle == null) {
      ConnectionFactory borrowed =
          new ConnectionFactory() {
            @Override
            public Connection openConnection() {
              return connection;
            }

            @Override
            public void closeConnection(Connection toClose) {
              // The boundary owns the connection.
            }
          };
      Jdbi jdbi = Jdbi.create(borrowed);
      jdbi.getConfig(Handles.class).setForceEndTransactions(false);
      handle = jdbi.open();
    }
    return handle;
  }

  /** Statement {@code sql}, prepared once per connection. */
  public NamedStatement statement(WorkerSql sql) throws SQLException {
    return prepared(sql, "");
  }

  /**
   * Claim statement {@code sql} followed by {@code SAVEPOINT}, the start of the handler's first
   * part ({@link #PART_SAVEPOINT}): one round trip for both. The claim's rows are the first result.
   */
  public NamedStatement claimAndSavepoint(WorkerSql sql) throws SQLException {
    return prepared(sql, ";\nSAVEPOINT " + PART_SAVEPOINT);
  }

  /**
   * Statement {@code sql} behind {@code before} (plain SQL, no parameters), prepared for one use
   * and not kept: the caller closes {@link NamedStatement#jdbc()}.
   */
  public NamedStatement prepareOnce(WorkerSql sql, String before) throws SQLException {
    return NamedStatement.Parsed.of(before + text(sql)).prepare(connection);
  }

  private NamedStatement prepared(WorkerSql sql, String then) throws SQLException {
    String key = sql.name() + then;
    NamedStatement statement = statements.get(key);
    if (statement == null) {
      statement = NamedStatement.Parsed.of(text(sql) + then).prepare(connection);
      statements.put(key, statement);
    }
    return statement;
  }

  private String text(WorkerSql sql) {
    return SqlFiles.get(WorkerConnection.class, sql.fileName(), Map.of("inbox", inbox));
  }

  /**
   * {@code SELECT 1}, answered within {@link #PING_TIMEOUT_MILLIS}, outside any transaction
   * afterwards: the SQLException of a dead connection.
   */
  public void ping() throws SQLException {
    int saved = connection.getNetworkTimeout();
    connection.setNetworkTimeout(Runnable::run, PING_TIMEOUT_MILLIS);
    try {
      statement(WorkerSql.PING).executeQuery().close();
      if (!connection.getAutoCommit()) {
        connection.rollback();
      }
    } finally {
      if (!connection.isClosed()) {
        connection.setNetworkTimeout(Runnable::run, saved);
      }
    }
  }

  /** Sends a cancel request for the statement running on this connection (from another thread). */
  public void cancel() {
    try {
      connection.unwrap(PGConnection.class).cancelQuery();
    } catch (SQLException | RuntimeException e) {
      LOG.debug("cancel request failed", e);
    }
  }

  /** Closes the socket at once, from any thread: the server rolls back the open transaction. */
  public void abort() {
    try {
      connection.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("abort failed", e);
    }
  }

  public boolean isClosed() {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  public void rollbackQuietly() {
    try {
      if (!connection.isClosed() && !connection.getAutoCommit()) {
        connection.rollback();
      }
    } catch (SQLException | RuntimeException e) {
      LOG.debug("rollback failed", e);
    }
  }

  /** Closes an owned connection (rolling back); a borrowed one only loses its statements. */
  @Override
  public void close() {
    if (owned) {
      rollbackQuietly();
      closeQuietly(handle);
    } else {
      for (NamedStatement statement : statements.values()) {
        try {
          statement.jdbc().close();
        } catch (SQLException e) {
          LOG.debug("closing a statement failed", e);
        }
      }
    }
  }

  private static void closeQuietly(Handle handle) {
    try {
      handle.close();
    } catch (RuntimeException e) {
      LOG.debug("closing a connection failed", e);
    }
  }
}
