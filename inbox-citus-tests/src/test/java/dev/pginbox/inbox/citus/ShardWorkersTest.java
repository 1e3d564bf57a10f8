package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.chaos.PgCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Workers claiming shard by shard on a real cluster: they share the shards, take over a dead
 * worker's, and keep exactly once, per-aggregate order and every message through killed workers,
 * terminated backends on a worker node, and a rebalance onto a new node while messages flow.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardWorkersTest {

  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  @Order(1)
  void workers_share_the_shards_and_take_over_a_dead_workers_shards() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "share", 40);
    int shards = (int) s.count("SELECT count(*) FROM inbox.inbox_shards('" + s.inbox + "')");
    List<ShardWorker> workers = start(cluster, s, 3);
    try {
      // The first to beat takes every shard; the others get their fair share as they join.
      await().atMost(WAIT).until(() -> fairShares(workers, shards));
      s.send(5);
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());

      ShardWorker dead = workers.remove(0);
      dead.kill();
      long deadProcessed = dead.processed();
      await().atMost(WAIT).until(() -> fairShares(workers, shards));
      s.send(5);
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
      assertThat(dead.processed()).isEqualTo(deadProcessed);
    } finally {
      closeAll(workers);
    }
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  @Order(2)
  void nothing_lost_or_repeated_while_workers_die_and_a_nodes_backends_are_terminated()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "chaos", 30);
    List<ShardWorker> workers = start(cluster, s, 3);
    try {
      // Right after each send the workers are claiming and handling what it brought.
      for (int round = 0; round < 3; round++) {
        s.send(4);
        terminateClientBackends(cluster.workerNodes().get(round % 2));
      }
      workers.remove(0).kill();
      workers.add(
          new ShardWorker(
                  cluster.coordinatorUrl(), DistributeInboxTest.options(s, "late"), s.handler())
              .start());
      s.send(4);
      terminateClientBackends(cluster.workerNodes().get(0));
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
    } finally {
      closeAll(workers);
    }
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  @Order(3)
  void a_rebalance_onto_a_new_node_while_messages_flow_keeps_every_message_once_in_order()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "rebalance", 30);
    List<ShardWorker> workers = start(cluster, s, 2);
    try {
      s.send(3);
      PgCluster added = cluster.addWorkerNode();
      try (Connection c = DriverManager.getConnection(cluster.coordinatorUrl());
          Statement st = c.createStatement()) {
        st.execute("SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')");
        for (int round = 0; round < 5; round++) {
          s.send(2);
        }
        st.execute("SELECT citus_rebalance_wait()");
      }
      s.send(3);
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
      assertThat(
              s.count(
                  "SELECT count(*) FROM inbox.inbox_shards('"
                      + s.inbox
                      + "') WHERE node_port = "
                      + added.port()))
          .as("shards of the inbox on the new node")
          .isPositive();
    } finally {
      closeAll(workers);
    }
    s.assertEveryMessageHandledOnceInOrder();
  }

  private static List<ShardWorker> start(CitusCluster cluster, Scenario s, int n) {
    List<ShardWorker> workers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      workers.add(
          new ShardWorker(
                  cluster.coordinatorUrl(), DistributeInboxTest.options(s, "w" + i), s.handler())
              .start());
    }
    return workers;
  }

  /** Every shard held by exactly one of the workers, each holding at most its fair share. */
  private static boolean fairShares(List<ShardWorker> workers, int shards) {
    int share = (shards + workers.size() - 1) / workers.size();
    Set<Integer> held = new HashSet<>();
    int total = 0;
    for (ShardWorker w : workers) {
      List<Integer> mine = w.partitions();
      if (mine.size() > share) {
        return false;
      }
      held.addAll(mine);
      total += mine.size();
    }
    return held.size() == shards && total == shards;
  }

  private static void terminateClientBackends(PgCluster node) throws SQLException {
    CitusCluster.sql(
        node.jdbcUrl("postgres"),
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
  }

  private static void closeAll(List<ShardWorker> workers) throws InterruptedException {
    for (ShardWorker w : workers) {
      w.close();
    }
  }
}
