package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.MessageRows;
import dev.pginbox.inbox.postgres.internal.worker.connection.DedicatedConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import dev.pginbox.inbox.postgres.internal.worker.connection.ServerBound;
import dev.pginbox.inbox.postgres.internal.worker.connection.ShardNodes;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import dev.pginbox.inbox.postgres.internal.worker.membership.Shard;
import dev.pginbox.inbox.postgres.internal.worker.membership.ShardSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The batch's storage on a distributed inbox: each transaction on the node that holds the shard
 * being visited ({@link #visit}), one connection of this processor's per node, and in it {@code
 * inbox.claim_shard} and {@code inbox.fail_in_shard}: claim, handler and commit on one node, no
 * two-phase commit. A batch past its processing timeout is ended on its node connection as on a
 * single server ({@link #endTimedOut}). What the shard claim does not do the store does not offer:
 * no held heads to wait for, no claim ahead, no give-back of claimed messages but a timed-out
 * batch's, no message too big to read; the worker refuses the options that need them.
 *
 * <p>One per processor thread, like {@link PostgresBatchStore}.
 */
public final class ShardBatchStore implements BatchStore, BatchTransactions {

  private final ShardNodes nodes;
  private final String inbox;
  private final Duration processingTimeout;
  private final String serverBound;
  // Concurrent: abort comes from other threads (the watchdog, a replacement, stop).
  private final Map<String, DedicatedConnection> connections = new ConcurrentHashMap<>();
  private final Map<String, WorkerConnection> statements = new ConcurrentHashMap<>();

  /** The aggregate of each message claimed in this transaction: fail_in_shard's key needs it. */
  private final Map<String, String> aggregates = new HashMap<>();

  private Shard shard;
  private ShardSettings settings;

  /** The connection of the current (or last) transaction, for a stop from another thread. */
  private volatile WorkerConnection wc;

  public ShardBatchStore(ShardNodes nodes, WorkerOptions options) {
    this.nodes = nodes;
    this.inbox = options.inbox();
    this.processingTimeout = options.processingTimeout();
    this.serverBound = ServerBound.millis(options.processingTimeout());
  }

  /** The shard the next transactions claim from, with the inbox's settings. */
  public void visit(Shard shard, ShardSettings settings) {
    this.shard = shard;
    this.settings = settings;
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws SQLException {
    DedicatedConnection node =
        connections.computeIfAbsent(
            shard.node(),
            key ->
                new DedicatedConnection(
                    nodes.jdbi(shard.host(), shard.port()), inbox, processingTimeout, null));
    aggregates.clear();
    return node.inTransaction((connection, rollbackOnly) -> work.run(on(connection), rollbackOnly));
  }

  /** The transaction's connection with its statements, prepared once per connection. */
  private BatchStore on(Connection connection) {
    WorkerConnection known = statements.get(shard.node());
    if (known == null || !known.wraps(connection)) {
      if (known != null) {
        known.close();
      }
      known = WorkerConnection.borrow(connection, inbox);
      statements.put(shard.node(), known);
    }
    wc = known;
    return this;
  }

  @Override
  public List<InboxMessage> claim(Claim claim) throws SQLException {
    // The scope, the byte budget and the priority share are the single-server claim's.
    NamedStatement ps =
        claim.setSavepoint()
            ? wc.claimAndSavepoint(WorkerSql.CLAIM_SHARD)
            : wc.statement(WorkerSql.CLAIM_SHARD);
    ps.setInt("limit", claim.limit())
        .setString("serverBound", serverBound)
        .setString("shard", shard.table())
        .setInt("maxRetries", settings.maxRetries())
        .setString("sequenceColumn", settings.sequenceColumn())
        .execute(); // the claimed rows first
    List<InboxMessage> messages;
    try (ResultSet rs = ps.jdbc().getResultSet()) {
      messages = MessageRows.readAll(rs);
    }
    for (InboxMessage m : messages) {
      aggregates.put(m.eventId(), m.aggregateId());
    }
    return messages;
  }

  /** No wait for a held head: the shard is visited again after the others. */
  @Override
  public boolean awaitHeldHead(ClaimScope.Claimable scope, int maxMillis) {
    return false;
  }

  /** Claim ahead is refused on a distributed inbox: nothing asks. */
  @Override
  public boolean blocksOthers() {
    return false;
  }

  @Override
  public void setSavepoint(boolean releasePrevious) throws SQLException {
    PostgresBatchStore.setSavepoint(wc, releasePrevious);
  }

  @Override
  public void rollbackToSavepoint() throws SQLException {
    PostgresBatchStore.rollbackToSavepoint(wc);
  }

  @Override
  public List<Recorded> recordFailures(List<Failure> failures) throws SQLException {
    NamedStatement ps = bindFailures(wc.statement(WorkerSql.FAIL_IN_SHARD), failures);
    try (ResultSet rs = ps.executeQuery()) {
      return PostgresBatchStore.recorded(rs);
    }
  }

  /** Binds the parameters of the shard's failures: the failures, their aggregates, the settings. */
  private NamedStatement bindFailures(NamedStatement statement, List<Failure> failures)
      throws SQLException {
    String[] aggregateIds =
        failures.stream().map(f -> aggregates.get(f.eventId())).toArray(String[]::new);
    return PostgresBatchStore.bindFailureArrays(statement, failures)
        .setArray("aggregateIds", "text", aggregateIds)
        .setString("shard", shard.table())
        .setInt("maxRetries", settings.maxRetries())
        .setString("backoffBase", settings.backoffBase())
        .setString("backoffMax", settings.backoffMax());
  }

  @Override
  public void releaseClaimed(List<String> eventIds) {
    throw unsupported("giving claimed messages back (messagesPerAggregate > 1)");
  }

  /**
   * As on a single server, one statement list sent as a unit on the batch's node connection
   * (end_timed_out_shard.sql), behind a rollback to the part's savepoint when asked; prepared for
   * this once, not kept.
   */
  @Override
  public List<Recorded> endTimedOut(
      boolean rollBackPart, List<Failure> failures, List<String> giveBack) throws SQLException {
    NamedStatement statement =
        wc.prepareOnce(
            WorkerSql.END_TIMED_OUT_SHARD,
            rollBackPart ? "ROLLBACK TO SAVEPOINT " + WorkerConnection.PART_SAVEPOINT + ";\n" : "");
    try (PreparedStatement ps = statement.jdbc()) {
      bindFailures(statement, failures)
          .setArray(
              "giveBackAggregateIds",
              "text",
              giveBack.stream().map(aggregates::get).toArray(String[]::new))
          .setArray("giveBack", "text", giveBack.toArray(String[]::new));
      return PostgresBatchStore.recordedOfUnit(ps);
    }
  }

  @Override
  public Unreadable claimUnreadable(ClaimScope.Claimable scope) {
    throw unsupported("claiming a message too big to read");
  }

  private InboxException unsupported(String what) {
    return new InboxException(what + " is not supported on a distributed inbox", inbox, null);
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    return PostgresBatchStore.unwrap(wc, type);
  }

  @Override
  public void cancel() {
    wc.cancel();
  }

  /**
   * From another thread: closes every node connection of this store at once, the batch's (its node
   * rolls back) and the idle ones to the other nodes. Called when the batch was taken away or the
   * worker stops: this store's thread ends after this batch, and one whose handler never returns
   * would otherwise keep them open.
   */
  @Override
  public void abort() {
    statements.values().forEach(WorkerConnection::abort);
  }

  @Override
  public boolean isClosed() {
    return wc.isClosed();
  }

  /** Closes this processor's node connections. */
  public void close() {
    statements.values().forEach(WorkerConnection::close);
    statements.clear();
    connections.values().forEach(DedicatedConnection::close);
    connections.clear();
  }
}
