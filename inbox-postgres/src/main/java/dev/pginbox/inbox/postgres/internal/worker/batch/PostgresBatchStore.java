package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.MessageRows;
import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import dev.pginbox.inbox.postgres.internal.worker.connection.ServerBound;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * The batch's storage on PostgreSQL: its transactions on a {@link BatchTransactionBoundary} (the
 * processor's own connection by default), and in each the worker's statements on the transaction's
 * connection, prepared once and kept while the boundary hands out the same connection. The claim
 * also sets the server-side bound of its transaction ({@link ServerBound}).
 *
 * <p>One per processor thread. The connection changes only between its thread's transactions; a
 * batch taken away from the thread (timeout, stop) ends the thread, so whoever ends that batch from
 * another thread finds the batch's connection here.
 */
public final class PostgresBatchStore implements BatchStore, BatchTransactions {

  private static final String SAVEPOINT = WorkerConnection.PART_SAVEPOINT;

  private final BatchTransactionBoundary boundary;

  /**
   * The statements on the connection of the current (or last) transaction; null before the first.
   */
  private volatile WorkerConnection wc;

  private final ClaimScope scope;
  private final String inbox;

  /** See {@link ServerBound}: set by the claim statement, for the claim's transaction only. */
  private final String serverBound;

  private final long maxBatchBytes;
  private final int messagesPerAggregate;

  public PostgresBatchStore(
      BatchTransactionBoundary boundary, ClaimScope scope, WorkerOptions options) {
    this.boundary = boundary;
    this.scope = scope;
    this.inbox = options.inbox();
    this.serverBound = ServerBound.millis(options.processingTimeout());
    this.maxBatchBytes = options.maxBatchBytes();
    this.messagesPerAggregate = options.messagesPerAggregate();
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws SQLException {
    return boundary.inTransaction(
        (connection, rollbackOnly) -> work.run(on(connection), rollbackOnly));
  }

  private BatchStore on(Connection connection) {
    if (wc == null || !wc.wraps(connection)) {
      if (wc != null) {
        wc.close();
      }
      wc = WorkerConnection.borrow(connection, inbox);
    }
    return this;
  }

  @Override
  public List<InboxMessage> claim(Claim claim) throws SQLException {
    // Automatic partitions: the lease guard in the claim's statement (claim_guarded.sql).
    boolean guarded = claim.scope().partitions() != null;
    WorkerSql sql = guarded ? WorkerSql.CLAIM_GUARDED : WorkerSql.CLAIM;
    NamedStatement ps = claim.setSavepoint() ? wc.claimAndSavepoint(sql) : wc.statement(sql);
    ps.setInt("limit", claim.limit()).setString("serverBound", serverBound);
    if (guarded) {
      scope.bind(ps, claim.scope());
    } else {
      ps.setIntArray("buckets", claim.scope().buckets());
    }
    ps.setLong(
            "maxBatchBytes",
            maxBatchBytes == WorkerOptions.NO_BATCH_BYTE_LIMIT ? null : maxBatchBytes)
        .setBoolean("lowerPriority", claim.lowerPriority())
        .setInt("perAggregate", messagesPerAggregate)
        .execute(); // the claimed rows first
    try (ResultSet rs = ps.jdbc().getResultSet()) {
      return MessageRows.readAll(rs);
    }
  }

  @Override
  public boolean awaitHeldHead(ClaimScope.Claimable claimable, int maxMillis) throws SQLException {
    NamedStatement ps =
        wc.statement(WorkerSql.AWAIT_HELD_HEAD)
            .setString("inbox", inbox)
            .setInt("maxMillis", maxMillis)
            .setIntArray("buckets", claimable.buckets());
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  @Override
  public boolean blocksOthers() throws SQLException {
    try (ResultSet rs = wc.statement(WorkerSql.BLOCKS_OTHERS).executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  @Override
  public void setSavepoint(boolean releasePrevious) throws SQLException {
    setSavepoint(wc, releasePrevious);
  }

  /** Sets the part savepoint on {@code wc}; shared with {@link ShardBatchStore}. */
  static void setSavepoint(WorkerConnection wc, boolean releasePrevious) throws SQLException {
    execute(
        wc,
        (releasePrevious ? "RELEASE SAVEPOINT " + SAVEPOINT + "; " : "")
            + "SAVEPOINT "
            + SAVEPOINT);
  }

  @Override
  public void rollbackToSavepoint() throws SQLException {
    rollbackToSavepoint(wc);
  }

  static void rollbackToSavepoint(WorkerConnection wc) throws SQLException {
    execute(wc, "ROLLBACK TO SAVEPOINT " + SAVEPOINT);
  }

  private static void execute(WorkerConnection wc, String sql) throws SQLException {
    try (Statement s = wc.connection().createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public List<Recorded> recordFailures(List<Failure> failures) throws SQLException {
    NamedStatement ps = bindFailures(wc.statement(WorkerSql.RECORD_FAILURES), failures);
    try (ResultSet rs = ps.executeQuery()) {
      return recorded(rs);
    }
  }

  @Override
  public void releaseClaimed(List<String> eventIds) throws SQLException {
    wc.statement(WorkerSql.RELEASE_CLAIMED)
        .setString("inbox", inbox)
        .setArray("eventIds", "text", eventIds.toArray())
        .execute();
  }

  /**
   * One statement list the driver sends as a unit (end_timed_out_batch.sql), behind a rollback to
   * the part's savepoint when asked; prepared for this once, not kept.
   */
  @Override
  public List<Recorded> endTimedOut(
      boolean rollBackPart, List<Failure> failures, List<String> giveBack) throws SQLException {
    NamedStatement statement =
        wc.prepareOnce(
            WorkerSql.END_TIMED_OUT_BATCH,
            rollBackPart ? "ROLLBACK TO SAVEPOINT " + SAVEPOINT + ";\n" : "");
    try (PreparedStatement ps = statement.jdbc()) {
      bindFailures(statement, failures).setArray("giveBack", "text", giveBack.toArray());
      return recordedOfUnit(ps);
    }
  }

  /**
   * Runs a statement list that records failures first (a timed-out batch's end) and reads the
   * failures' rows, its first result; shared with {@link ShardBatchStore}.
   */
  static List<Recorded> recordedOfUnit(PreparedStatement ps) throws SQLException {
    boolean resultSet = ps.execute();
    List<Recorded> recorded = null;
    while (resultSet || ps.getUpdateCount() != -1) {
      if (resultSet && recorded == null) {
        try (ResultSet rs = ps.getResultSet()) {
          recorded = recorded(rs);
        }
      }
      resultSet = ps.getMoreResults();
    }
    return recorded == null ? List.of() : recorded;
  }

  @Override
  public Unreadable claimUnreadable(ClaimScope.Claimable claimable) throws SQLException {
    NamedStatement ps =
        wc.statement(WorkerSql.CLAIM_UNREADABLE).setString("serverBound", serverBound);
    scope.bind(ps, claimable);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? new Unreadable(rs.getString(1), rs.getLong(2)) : null;
    }
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    return unwrap(wc, type);
  }

  /**
   * The transaction of {@code wc} as the handler asks for it; shared with {@link ShardBatchStore}.
   */
  static <T> T unwrap(WorkerConnection wc, Class<T> type) {
    if (type.isInstance(wc.connection())) {
      return type.cast(wc.connection());
    }
    if (type == Handle.class) {
      return type.cast(wc.handle());
    }
    throw new InboxException(
        "this transaction unwraps to "
            + Handle.class.getName()
            + " or "
            + Connection.class.getName()
            + ", not "
            + type.getName(),
        null);
  }

  @Override
  public void cancel() {
    wc.cancel();
  }

  @Override
  public void abort() {
    wc.abort();
  }

  @Override
  public boolean isClosed() {
    return wc.isClosed();
  }

  /**
   * Binds the parameters of a {@code record_failures} call: inbox, eventIds, errors, delays, dead.
   */
  private NamedStatement bindFailures(NamedStatement statement, List<Failure> failures)
      throws SQLException {
    return bindFailureArrays(statement, failures).setString("inbox", inbox);
  }

  /**
   * Binds the failures as arrays, one element per failure: eventIds, errors, delays (null: the
   * inbox's backoff), dead; shared with {@link ShardBatchStore}.
   */
  static NamedStatement bindFailureArrays(NamedStatement statement, List<Failure> failures)
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
    return statement
        .setArray("eventIds", "text", ids)
        .setArray("errors", "text", errors)
        .setArray("delays", "text", delays)
        .setArray("dead", "bool", dead);
  }

  /**
   * The (event_id, result) rows of a {@code record_failures} call (or of the shard's failures: a
   * null result, a message no longer the transaction's, is not recorded).
   */
  static List<Recorded> recorded(ResultSet rs) throws SQLException {
    List<Recorded> recorded = new ArrayList<>();
    while (rs.next()) {
      if (rs.getString(2) == null) {
        continue;
      }
      recorded.add(new Recorded(rs.getString(1), "dead".equals(rs.getString(2))));
    }
    return recorded;
  }
}
