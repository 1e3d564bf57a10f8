package dev.pginbox.inbox.citus;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxTransaction;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker of a distributed inbox that claims shard by shard: the automatic partition mode's
 * leases, on the coordinator, with one partition per shard ({@code inbox.worker_heartbeat}), give
 * it a set of shards; for each it connects to the node holding the shard ({@code
 * inbox.inbox_shards}, read again after every heartbeat, so a moved shard is followed) and runs
 * claim ({@code inbox.claim_shard}), handler and commit there, one single-node transaction. The
 * handler writes the application's co-located tables through {@code tx.unwrap(Connection.class)} by
 * their distributed names: Citus on that node runs them on its local shards.
 *
 * <p>The test suite's worker: poll-only, one thread, message handlers only. A lost connection
 * charges nobody (its transaction rolled back); a handler's exception or retry/dead outcome is a
 * failed attempt ({@code inbox.fail_in_shard}) in the same transaction.
 */
public final class ShardWorker implements AutoCloseable {

  /** How a worker runs. */
  public record Options(
      String inbox, String workerId, int batchSize, Duration lease, Duration poll) {}

  private static final Duration RECONNECT_PAUSE = Duration.ofMillis(200);

  private final String coordinatorUrl;
  private final Options options;
  private final MessageHandler handler;
  private final Map<String, Connection> nodes = new HashMap<>();
  private final AtomicLong processed = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean killed;
  private Connection coordinator;
  private ShardClaim.Settings settings;
  private List<Shard> owned = List.of();
  private long nextHeartbeat;

  private record Shard(int partition, String table, String url) {}

  public ShardWorker(String coordinatorUrl, Options options, MessageHandler handler) {
    this.coordinatorUrl = coordinatorUrl;
    this.options = options;
    this.handler = handler;
    this.thread = new Thread(this::run, "shard-worker-" + options.workerId());
  }

  public ShardWorker start() {
    thread.start();
    return this;
  }

  /** Messages this worker processed (committed). */
  public long processed() {
    return processed.get();
  }

  /** The partitions (shards, in hash order) it held at its last heartbeat. */
  public synchronized List<Integer> partitions() {
    return owned.stream().map(Shard::partition).toList();
  }

  /** A crash: every connection aborted mid-transaction, no goodbye; its leases simply expire. */
  public void kill() throws InterruptedException {
    killed = true;
    running = false;
    thread.interrupt();
    thread.join();
  }

  /** Orderly stop: the batch in hand ends, then the worker gives its leases up. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join();
  }

  private void run() {
    while (running) {
      try {
        if (coordinator == null) {
          coordinator = DriverManager.getConnection(coordinatorUrl);
          settings = ShardClaim.Settings.read(coordinator, options.inbox());
        }
        if (System.nanoTime() >= nextHeartbeat) {
          heartbeat();
        }
        int claimed = 0;
        for (Shard shard : ownedShards()) {
          claimed += claimBatch(shard);
        }
        if (claimed == 0) {
          Thread.sleep(options.poll().toMillis());
        }
      } catch (InterruptedException e) {
        break;
      } catch (SQLException e) {
        closeAll();
        if (!pause()) {
          break;
        }
      }
    }
    if (!killed) {
      leave();
    }
    closeAll();
  }

  private synchronized List<Shard> ownedShards() {
    return owned;
  }

  private void heartbeat() throws SQLException {
    List<Integer> partitions = new ArrayList<>();
    try (PreparedStatement s =
        coordinator.prepareStatement("SELECT inbox.worker_heartbeat(?, ?, ?, ?::interval)")) {
      s.setString(1, options.inbox());
      s.setString(2, options.workerId());
      s.setInt(3, settings.shards());
      s.setString(4, options.lease().toMillis() + " milliseconds");
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        Array array = rs.getArray(1);
        for (Integer p : (Integer[]) array.getArray()) {
          partitions.add(p);
        }
      }
    }
    List<Shard> shards = new ArrayList<>();
    try (PreparedStatement s =
        coordinator.prepareStatement(
            "SELECT partition_id, shard_table, node_name, node_port FROM inbox.inbox_shards(?)")) {
      s.setString(1, options.inbox());
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          if (partitions.contains(rs.getInt(1))) {
            shards.add(
                new Shard(
                    rs.getInt(1),
                    rs.getString(2),
                    CitusCluster.url(rs.getString(3), rs.getInt(4))));
          }
        }
      }
    }
    synchronized (this) {
      owned = List.copyOf(shards);
    }
    nextHeartbeat = System.nanoTime() + options.lease().toNanos() / 3;
  }

  private int claimBatch(Shard shard) throws SQLException, InterruptedException {
    Connection node = node(shard.url());
    try {
      List<InboxMessage> batch =
          ShardClaim.claim(node, shard.table(), options.batchSize(), settings);
      InboxTransaction tx = new NodeTransaction(node);
      for (InboxMessage message : batch) {
        handle(node, shard, tx, message);
      }
      node.commit();
      processed.addAndGet(batch.size());
      return batch.size();
    } catch (SQLException e) {
      nodes.remove(shard.url());
      node.abort(Runnable::run);
      throw e;
    }
  }

  private void handle(Connection node, Shard shard, InboxTransaction tx, InboxMessage message)
      throws SQLException, InterruptedException {
    Savepoint savepoint = node.setSavepoint();
    Outcome outcome;
    try {
      outcome = handler.handle(message, tx);
    } catch (InterruptedException e) {
      throw e;
    } catch (SQLException e) {
      if (e.getSQLState() != null
          && (e.getSQLState().startsWith("08") || e.getSQLState().startsWith("57"))) {
        throw e; // the connection is gone: nobody is charged
      }
      outcome = Outcome.retry(e.toString());
    } catch (Exception e) {
      outcome = Outcome.retry(e.toString());
    }
    if (outcome == null || outcome.marksProcessed()) {
      node.releaseSavepoint(savepoint);
      return;
    }
    node.rollback(savepoint);
    ShardClaim.recordFailure(node, shard.table(), message, outcome, settings);
  }

  private Connection node(String url) throws SQLException {
    Connection c = nodes.get(url);
    if (c == null) {
      c = DriverManager.getConnection(url);
      c.setAutoCommit(false);
      nodes.put(url, c);
    }
    return c;
  }

  private void leave() {
    try (Connection c = DriverManager.getConnection(coordinatorUrl);
        PreparedStatement s = c.prepareStatement("SELECT inbox.worker_leave(?, ?)")) {
      s.setString(1, options.inbox());
      s.setString(2, options.workerId());
      s.execute();
    } catch (SQLException e) {
      // its leases expire instead
    }
  }

  private boolean pause() {
    try {
      Thread.sleep(RECONNECT_PAUSE.toMillis());
      return running;
    } catch (InterruptedException e) {
      return false;
    }
  }

  private void closeAll() {
    List<Connection> all = new ArrayList<>(nodes.values());
    nodes.clear();
    if (coordinator != null) {
      all.add(coordinator);
      coordinator = null;
    }
    for (Connection c : all) {
      try {
        c.abort(Runnable::run);
      } catch (SQLException e) {
        // gone already
      }
    }
  }

  /** The handler's view of the claim transaction: the connection to the shard's node. */
  private record NodeTransaction(Connection connection) implements InboxTransaction {
    @Override
    public <T> T unwrap(Class<T> type) {
      if (type.isInstance(connection)) {
        return type.cast(connection);
      }
      throw new IllegalArgumentException("cannot unwrap " + type.getName());
    }
  }
}
