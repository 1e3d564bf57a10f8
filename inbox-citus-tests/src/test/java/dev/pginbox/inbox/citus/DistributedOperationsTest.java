package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * What producers, workers and operators do to a distributed inbox besides the batch send and the
 * claim: the single send, the failure history a failed attempt in a shard records, and the operator
 * functions that walk the aggregates' heads or look for the oldest message.
 */
class DistributedOperationsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void a_single_send_stores_a_message_once_and_reports_the_duplicate() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "single", 2);
    PostgresInbox inbox =
        PostgresInboxManager.create(SharedCluster.dataSource(cluster.coordinatorUrl()))
            .inbox(s.inbox);
    NewMessage message = NewMessage.of("one", "tested", "agg-1", "{\"n\": 1}");

    try (Connection c = DriverManager.getConnection(cluster.coordinatorUrl())) {
      assertThat(inbox.send(c, message)).isTrue();
      assertThat(inbox.send(c, message)).as("the duplicate").isFalse();
    }
    assertThat(s.count("SELECT count(*) FROM inbox." + s.inbox + " WHERE event_id = 'one'"))
        .isEqualTo(1);
    // A batch counts what it inserted, not what it was given.
    assertThat(
            inbox.sendAll(List.of(message, NewMessage.of("two", "tested", "agg-0", "{\"n\": 1}"))))
        .isEqualTo(1);
  }

  @Test
  void operators_see_the_blocked_heads_and_the_health_of_a_distributed_ordered_inbox()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "heads", 3);
    s.send(2);
    CitusCluster.sql(
        cluster.coordinatorUrl(),
        "UPDATE inbox."
            + s.inbox
            + " SET retry_count = 5, died_at = now(), error = 'poison'"
            + " WHERE aggregate_id = 'agg-0' AND event_id = 'e-0-1'",
        "UPDATE inbox."
            + s.inbox
            + " SET retry_count = 1, next_attempt_at = now() + interval '1 hour',"
            + " failing_since = now(), error = 'flaky'"
            + " WHERE aggregate_id = 'agg-1' AND event_id = 'e-1-1'");

    String blocked = "FROM inbox.inbox_blocked_aggregates('" + s.inbox + "')";
    assertThat(s.count("SELECT count(*) " + blocked)).isEqualTo(2);
    assertThat(
            s.count(
                "SELECT count(*) "
                    + blocked
                    + " WHERE aggregate_id = 'agg-0' AND reason = 'dead_letter' AND event_id = 'e-0-1'"
                    + " AND error = 'poison' AND waiting_behind = 1 AND blocked_since IS NOT NULL"))
        .isEqualTo(1);
    assertThat(
            s.count(
                "SELECT count(*) "
                    + blocked
                    + " WHERE aggregate_id = 'agg-1' AND reason = 'backing_off' AND event_id = 'e-1-1'"
                    + " AND blocked_until > now() AND waiting_behind = 1"))
        .isEqualTo(1);
    assertThat(
            s.count("SELECT n FROM inbox.count_blocked_aggregates('" + s.inbox + "') WHERE exact"))
        .isEqualTo(2);
    assertThat(s.count("SELECT cardinality(inbox.stalled_aggregates('" + s.inbox + "'))"))
        .isEqualTo(2);

    String health = "(inbox.inbox_health('" + s.inbox + "') ->> '%s')::bigint";
    assertThat(s.count("SELECT " + health.formatted("blocked_aggregates"))).isEqualTo(2);
    assertThat(s.count("SELECT " + health.formatted("dlq_count"))).isEqualTo(1);
    assertThat(s.count("SELECT " + health.formatted("pending_count"))).isEqualTo(5);
    assertThat(s.count("SELECT " + health.formatted("blocked_count")))
        .as("the backing-off head and the messages behind both heads")
        .isEqualTo(3);
    String status = "inbox.inbox_status('" + s.inbox + "')";
    assertThat(s.count("SELECT (" + status + " -> 'counts' ->> 'dead')::bigint")).isEqualTo(1);
    assertThat(s.count("SELECT (" + status + " -> 'counts' ->> 'pending')::bigint")).isEqualTo(5);
    assertThat(s.count("SELECT (" + status + " -> 'counts' ->> 'retrying')::bigint")).isEqualTo(1);
    assertThat(s.count("SELECT (" + status + " ->> 'blocked_aggregates')::bigint")).isEqualTo(2);
  }

  @Test
  void health_and_status_answer_for_a_distributed_inbox_without_ordering() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.prepare(cluster, "plain", 1);
    String plain = s.inbox + "_plain";
    CitusCluster.sql(
        cluster.coordinatorUrl(),
        "SELECT inbox.create_inbox('" + plain + "')",
        "SELECT inbox.distribute_inbox('" + plain + "', colocate_with => '" + s.accounts + "')",
        "SELECT inbox.send_"
            + plain
            + "(ARRAY['a', 'b', 'c'], NULL, NULL, ARRAY['agg-1', 'agg-2', 'agg-3'], NULL, NULL)",
        "UPDATE inbox." + plain + " SET retry_count = 10 WHERE aggregate_id = 'agg-3'");

    String health = "(inbox.inbox_health('" + plain + "') ->> '%s')::bigint";
    assertThat(s.count("SELECT " + health.formatted("pending_count"))).isEqualTo(2);
    assertThat(s.count("SELECT " + health.formatted("dlq_count"))).isEqualTo(1);
    assertThat(s.count("SELECT " + health.formatted("blocked_aggregates"))).isZero();
    assertThat(
            s.count(
                "SELECT (inbox.inbox_status('" + plain + "') -> 'counts' ->> 'pending')::bigint"))
        .isEqualTo(2);
    // distribute_inbox dropped the insert trigger: status must not promise wake-ups.
    assertThat(
            s.count(
                "SELECT count(*) WHERE NOT (inbox.inbox_status('"
                    + plain
                    + "') #> '{features,notifications,enabled}')::boolean"))
        .isEqualTo(1);
  }

  @Test
  void a_failure_in_a_shard_records_the_failure_history() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "history", 2);
    s.send(1);
    var handler = s.handler();
    AtomicBoolean failedOnce = new AtomicBoolean();
    try (ShardWorker worker =
        new ShardWorker(
                cluster.coordinatorUrl(),
                DistributeInboxTest.options(s, "history"),
                (m, tx) -> {
                  if (!m.eventId().equals("e-1-1")) {
                    return handler.handle(m, tx);
                  }
                  if (failedOnce.compareAndSet(false, true)) {
                    throw new IllegalStateException("first failure");
                  }
                  return Outcome.dead("poison");
                })
            .start()) {
      await()
          .atMost(WAIT)
          .until(() -> s.count("SELECT count(*) FROM inbox." + s.inbox + "_dlq") == 1);
    }

    String row = "FROM inbox." + s.inbox + " WHERE event_id = 'e-1-1'";
    assertThat(
            s.count(
                "SELECT count(*) "
                    + row
                    + " AND died_at IS NOT NULL AND failing_since IS NOT NULL"
                    + " AND failing_since < last_failed_at AND died_at = last_failed_at"))
        .isEqualTo(1);
    assertThat(s.count("SELECT jsonb_array_length(attempts) " + row)).isEqualTo(2);
    assertThat(
            s.count(
                "SELECT count(*) "
                    + row
                    + " AND attempts -> 0 ->> 'attempt' = '1'"
                    + " AND attempts -> 0 ->> 'error' LIKE '%first failure%'"
                    + " AND attempts -> 1 ->> 'error' = 'poison'"))
        .isEqualTo(1);
    assertThat(
            s.count(
                "SELECT count(*) FROM inbox."
                    + s.inbox
                    + " WHERE event_id <> 'e-1-1' AND (attempts IS NOT NULL OR died_at IS NOT NULL)"))
        .as("messages that never failed have no history")
        .isZero();
  }

  @Test
  void retention_deletes_and_strips_old_messages_of_a_distributed_inbox() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "retention", 4);
    s.send(2);
    String table = "inbox." + s.inbox;
    CitusCluster.sql(
        cluster.coordinatorUrl(),
        "UPDATE "
            + table
            + " SET processed_at = now() - interval '30 days' WHERE event_id LIKE '%-1'",
        "UPDATE "
            + table
            + " SET processed_at = now() - interval '4 days', error = 'kept'"
            + " WHERE event_id IN ('e-0-2', 'e-1-2')",
        "UPDATE "
            + table
            + " SET retry_count = 5, received_at = now() - interval '30 days'"
            + " WHERE event_id = 'e-2-2'",
        "UPDATE inbox.inbox_config SET dedup_retention = interval '10 days'"
            + " WHERE inbox_name = '"
            + s.inbox
            + "'");

    assertThat(
            s.count(
                "SELECT (r ->> 'deleted_processed')::bigint + 10 * (r ->> 'stripped_processed')::bigint"
                    + " + 100 * (r ->> 'deleted_dead')::bigint"
                    + " FROM inbox.purge_inbox('"
                    + s.inbox
                    + "') r"))
        .as("4 processed rows deleted, 2 stripped, 1 dead letter deleted")
        .isEqualTo(4 + 20 + 100);
    assertThat(s.count("SELECT count(*) FROM " + table)).isEqualTo(3);
    assertThat(
            s.count(
                "SELECT count(*) FROM "
                    + table
                    + " WHERE event_id IN ('e-0-2', 'e-1-2') AND payload IS NULL AND error IS NULL"))
        .isEqualTo(2);
    // The workers' sweep goes through try_purge_inbox: nothing is left to do.
    assertThat(
            s.count(
                "SELECT count(*) FROM inbox.try_purge_inbox('"
                    + s.inbox
                    + "') r WHERE r ->> 'more' = 'false'"
                    + " AND (r ->> 'deleted_processed')::bigint = 0"))
        .isEqualTo(1);
  }
}
