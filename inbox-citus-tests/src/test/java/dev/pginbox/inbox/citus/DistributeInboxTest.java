package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.chaos.PgCluster;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@code inbox.distribute_inbox} on a real cluster (a coordinator, two worker nodes): what it
 * refuses, and that a handler's writes to the application's co-located table commit or roll back
 * with the processed mark, in one transaction on one node.
 */
class DistributeInboxTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void refuses_a_database_without_citus() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    CitusCluster.sql(cluster.coordinatorUrl(), "CREATE DATABASE no_citus");
    String url = cluster.coordinatorUrl().replace("/postgres?", "/no_citus?");
    dev.pginbox.inbox.postgres.PostgresInboxManager.create(SharedCluster.dataSource(url)).install();
    CitusCluster.sql(url, "SELECT inbox.create_inbox('plain')");

    assertThatThrownBy(
            () ->
                CitusCluster.sql(
                    url, "SELECT inbox.distribute_inbox('plain', colocate_with => 'x')"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("needs the Citus extension")
        .extracting(e -> ((SQLException) e).getSQLState())
        .isEqualTo("0A000");
  }

  @Test
  void refuses_messages_without_an_aggregate_id_and_leaves_the_inbox_as_it_was() throws Exception {
    Scenario s = Scenario.prepare(SharedCluster.get(), "nulls", 2);
    CitusCluster.sql(
        SharedCluster.get().coordinatorUrl(),
        "SELECT inbox.send_" + s.inbox + "(ARRAY['no-aggregate'], NULL, NULL, NULL, NULL, NULL)");

    assertThatThrownBy(() -> distribute(s))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("1 messages without an aggregate id")
        .extracting(e -> ((SQLException) e).getSQLState())
        .isEqualTo("23502");
    assertThat(
            s.count(
                "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'inbox."
                    + s.inbox
                    + "'::regclass"))
        .isZero();
  }

  @Test
  void refuses_a_tracked_inbox_and_a_table_that_is_not_distributed() throws Exception {
    String url = SharedCluster.get().coordinatorUrl();
    CitusCluster.sql(
        url,
        "CREATE TABLE app.tracked_events (id text PRIMARY KEY, type text, done_at timestamptz)",
        "SELECT inbox.enable_inbox_tracking('tracked', 'app.tracked_events', p_id_column => 'id',"
            + " p_processed_at_column => 'done_at', p_event_type_column => 'type')",
        "CREATE TABLE app.local_table (aggregate_id text PRIMARY KEY)");
    assertThatThrownBy(
            () ->
                CitusCluster.sql(
                    url,
                    "SELECT inbox.distribute_inbox('tracked', colocate_with => 'app.local_table')"))
        .hasMessageContaining("is a tracked table and cannot be distributed")
        .extracting(e -> ((SQLException) e).getSQLState())
        .isEqualTo("0A000");

    Scenario s = Scenario.prepare(SharedCluster.get(), "local", 1);
    assertThatThrownBy(
            () ->
                CitusCluster.sql(
                    url,
                    "SELECT inbox.distribute_inbox('"
                        + s.inbox
                        + "', colocate_with => 'app.local_table')"))
        .hasMessageContaining("is not a hash-distributed table")
        .extracting(e -> ((SQLException) e).getSQLState())
        .isEqualTo("22023");
  }

  @Test
  void a_distributed_inbox_keeps_its_messages_and_views_on_the_coordinator() throws Exception {
    Scenario s = Scenario.prepare(SharedCluster.get(), "kept", 10);
    PostgresInboxManager manager =
        PostgresInboxManager.create(SharedCluster.dataSource(SharedCluster.get().coordinatorUrl()));
    s.send(3);
    assertThat(manager.isDistributed(s.inbox)).as("before distribute_inbox").isFalse();
    distribute(s);
    assertThat(manager.isDistributed(s.inbox)).as("after distribute_inbox").isTrue();
    assertThat(manager.isDistributed("no_such_inbox")).isFalse();

    assertThat(s.count("SELECT count(*) FROM inbox." + s.inbox + "_pending")).isEqualTo(30);
    assertThat(s.count("SELECT count(*) FROM inbox.next_" + s.inbox)).isEqualTo(10);
    assertThat(s.count("SELECT sum(pending) FROM inbox." + s.inbox + "_stats")).isEqualTo(30);
    assertThat(s.count("SELECT count(*) FROM inbox.inbox_shards('" + s.inbox + "')"))
        .as("one partition per shard, co-located with the application's")
        .isEqualTo(
            s.count(
                "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = '"
                    + s.accounts
                    + "'::regclass"));
    // A duplicate is ignored per aggregate: the key is (aggregate_id, event_id).
    CitusCluster.sql(
        SharedCluster.get().coordinatorUrl(),
        "SELECT inbox.send_"
            + s.inbox
            + "(ARRAY['e-0-1'], NULL, NULL, ARRAY['agg-0'], NULL, NULL)");
    assertThat(s.count("SELECT count(*) FROM inbox." + s.inbox)).isEqualTo(30);
  }

  @Test
  void handler_writes_commit_with_the_processed_mark_in_one_single_node_transaction()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "tx", 20);
    s.send(3);
    // Message e-3-2 fails once after its handler wrote: its writes go, the others' stay.
    AtomicBoolean failedOnce = new AtomicBoolean();
    var handler = s.handler();
    try (ShardWorker worker =
        new ShardWorker(
                cluster.coordinatorUrl(),
                options(s, "w1"),
                (m, tx) -> {
                  Outcome o = handler.handle(m, tx);
                  if (m.eventId().equals("e-3-2") && failedOnce.compareAndSet(false, true)) {
                    throw new IllegalStateException("fails after writing");
                  }
                  return o;
                })
            .start()) {
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
    }

    s.assertEveryMessageHandledOnceInOrder();
    assertThat(s.count("SELECT retry_count FROM inbox." + s.inbox + " WHERE event_id = 'e-3-2'"))
        .isEqualTo(1);
    assertThat(s.count("SELECT attempt FROM " + s.effects + " WHERE event_id = 'e-3-2'"))
        .isEqualTo(2);
  }

  @Test
  void a_transaction_lost_after_the_handler_wrote_leaves_neither_the_writes_nor_the_mark()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "lost", 1);
    s.send(1);
    CountDownLatch wrote = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    var handler = s.handler();
    ShardWorker doomed =
        new ShardWorker(
                cluster.coordinatorUrl(),
                options(s, "doomed"),
                (m, tx) -> {
                  Outcome o = handler.handle(m, tx);
                  wrote.countDown();
                  never.await(); // until the kill interrupts it
                  return o;
                })
            .start();
    assertThat(wrote.await(60, TimeUnit.SECONDS)).isTrue();
    doomed.kill();

    assertThat(s.count("SELECT count(*) FROM " + s.effects)).isZero();
    assertThat(s.processedMessages()).isZero();
    try (ShardWorker worker =
        new ShardWorker(cluster.coordinatorUrl(), options(s, "next"), s.handler()).start()) {
      await().atMost(WAIT).until(() -> s.processedMessages() == 1);
    }
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  void operators_see_dead_letters_and_the_heads_they_block_and_replay_them_from_the_coordinator()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "ops", 4);
    s.send(2);
    var handler = s.handler();
    AtomicBoolean poisoned = new AtomicBoolean(true);
    try (ShardWorker worker =
        new ShardWorker(
                cluster.coordinatorUrl(),
                options(s, "ops"),
                (m, tx) ->
                    m.eventId().equals("e-1-1") && poisoned.get()
                        ? Outcome.dead("poison")
                        : handler.handle(m, tx))
            .start()) {
      // Everything but the dead letter and the message behind it in its aggregate.
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent() - 2);
      String url = cluster.coordinatorUrl();
      assertThat(s.count("SELECT count(*) FROM inbox." + s.inbox + "_dlq")).isEqualTo(1);
      // The dead letter blocks its aggregate: it is that aggregate's head.
      assertThat(
              s.count(
                  "SELECT count(*) FROM inbox.next_"
                      + s.inbox
                      + " WHERE aggregate_id = 'agg-1' AND event_id = 'e-1-1' AND retry_count >= 5"))
          .isEqualTo(1);
      assertThat(s.count("SELECT sum(dead) FROM inbox." + s.inbox + "_stats")).isEqualTo(1);

      poisoned.set(false);
      CitusCluster.sql(
          url, "SELECT inbox.replay_inbox_messages('" + s.inbox + "', ARRAY['e-1-1'])");
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
    }
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  void an_install_over_an_inbox_distributed_before_release_in_shard_copies_it_to_every_node()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario.distributed(cluster, "reinstall", 2);
    String releaseInShard = "inbox.release_in_shard(text, text[], text[])";
    // As before the function existed: dropped on the coordinator, Citus drops it on the nodes.
    CitusCluster.sql(cluster.coordinatorUrl(), "DROP FUNCTION " + releaseInShard);
    for (PgCluster node : cluster.workerNodes()) {
      assertThat(functions(node, releaseInShard)).as("on " + node.port() + " before").isZero();
    }

    PostgresInboxManager.create(SharedCluster.dataSource(cluster.coordinatorUrl())).install();

    for (PgCluster node : cluster.workerNodes()) {
      assertThat(functions(node, releaseInShard)).as("on " + node.port() + " after").isEqualTo(1);
    }
  }

  /** How many functions of that signature the node has (0 or 1). */
  private static long functions(PgCluster node, String signature) throws SQLException {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl("postgres"));
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM pg_proc WHERE oid = to_regprocedure('" + signature + "')")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static ShardWorker.Options options(Scenario s, String id) {
    return new ShardWorker.Options(s.inbox, id, 10, Duration.ofSeconds(2), Duration.ofMillis(50));
  }

  private static void distribute(Scenario s) throws Exception {
    CitusCluster.sql(
        SharedCluster.get().coordinatorUrl(),
        "SELECT inbox.distribute_inbox('" + s.inbox + "', colocate_with => '" + s.accounts + "')");
  }
}
