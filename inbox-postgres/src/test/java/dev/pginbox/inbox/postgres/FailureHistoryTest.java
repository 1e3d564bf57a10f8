package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.BlockedAggregate;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.DlqGroup;
import dev.pginbox.inbox.operations.FailedAttempt;
import dev.pginbox.inbox.operations.MessageDetail;
import dev.pginbox.inbox.operations.PartitionLag;
import dev.pginbox.inbox.operations.ThroughputPoint;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * The failure history (step 3): when a message started failing, when it died, its last five
 * attempts, and what the operator functions make of them (inbox_message, inbox_dlq_groups,
 * inbox_blocked_aggregates, inbox_partition_lag, inbox_throughput), for managed, ordered and
 * tracked inboxes.
 */
class FailureHistoryTest extends InboxTestSupport {

  private static PostgresInbox inbox(String name, int maxRetries) {
    return manager.createInbox(name, InboxOptions.builder().maxRetries(maxRetries).build());
  }

  private static MessageDetail message(String inbox, String eventId) {
    return manager.inbox(inbox).operations().message(eventId).orElseThrow();
  }

  private static Instant time(String query) {
    return jdbi.withHandle(h -> h.select(query).mapTo(OffsetDateTime.class).one()).toInstant();
  }

  @Test
  void each_failed_attempt_is_recorded_with_its_time_and_a_dead_letter_with_when_it_died() {
    inbox("history_plain", 3).send(NewMessage.of("m1", "order.placed", null, "{}"));
    sql("SELECT inbox.mark_failed('history_plain', 'm1', 'tax service timeout after 100 ms')");
    sql("SELECT inbox.mark_failed('history_plain', 'm1', 'tax service timeout after 200 ms')");
    MessageDetail failing = message("history_plain", "m1");
    assertThat(failing.state()).isEqualTo("pending");
    assertThat(failing.diedAt()).isNull();
    assertThat(failing.attempts()).extracting(FailedAttempt::attempt).containsExactly(1, 2);
    assertThat(failing.attempts())
        .extracting(FailedAttempt::error)
        .containsExactly("tax service timeout after 100 ms", "tax service timeout after 200 ms");
    assertThat(failing.failingSince()).isEqualTo(failing.attempts().get(0).at());

    sql("SELECT inbox.mark_failed('history_plain', 'm1', 'tax service timeout after 300 ms')");
    MessageDetail dead = message("history_plain", "m1");
    assertThat(dead.state()).isEqualTo("dead");
    assertThat(dead.attempts()).hasSize(3);
    assertThat(dead.diedAt()).isEqualTo(dead.attempts().get(2).at());
    assertThat(dead.failingSince()).isEqualTo(failing.failingSince());

    DlqGroup group = manager.inbox("history_plain").operations().dlqGroups(10).get(0);
    assertThat(group.firstDiedAt()).isEqualTo(dead.diedAt());
    assertThat(group.lastDiedAt()).isEqualTo(dead.diedAt());
    assertThat(group.firstSeen()).isEqualTo(dead.receivedAt());
  }

  @Test
  void the_history_keeps_the_last_five_attempts_with_long_errors_cut() {
    inbox("history_capped", 10).send(NewMessage.of("m1", "t", null, "{}"));
    for (int i = 1; i <= 6; i++) {
      sql("SELECT inbox.mark_failed('history_capped', 'm1', 'failure " + i + "')");
    }
    // The batch path of the Java worker, with an error far longer than the history keeps.
    sql(
        "SELECT * FROM inbox.record_failures('history_capped', ARRAY['m1'], ARRAY[repeat('x', 3000)],"
            + " ARRAY[NULL::interval], ARRAY[false])");
    MessageDetail m = message("history_capped", "m1");
    assertThat(m.attempts()).extracting(FailedAttempt::attempt).containsExactly(3, 4, 5, 6, 7);
    assertThat(m.attempts().get(4).error()).hasSize(500);
    assertThat(m.error()).hasSize(3000);
    assertThat(count("SELECT jsonb_array_length(attempts) FROM inbox.history_capped")).isEqualTo(5);

    sql("SELECT inbox.mark_dead('history_capped', 'm1', 'given up')");
    MessageDetail dead = message("history_capped", "m1");
    assertThat(dead.state()).isEqualTo("dead");
    assertThat(dead.attempts()).extracting(FailedAttempt::attempt).containsExactly(4, 5, 6, 7, 8);
    assertThat(dead.diedAt()).isEqualTo(dead.attempts().get(4).at());
  }

  @Test
  void a_replay_clears_when_it_failed_and_died_and_keeps_the_attempts() {
    inbox("history_replay", 1).send(NewMessage.of("m1", "t", null, "{}"));
    sql("SELECT inbox.mark_failed('history_replay', 'm1', 'boom')");
    assertThat(message("history_replay", "m1").diedAt()).isNotNull();

    manager.inbox("history_replay").operations().replay(DeadLetterSelection.ids(List.of("m1")));
    MessageDetail replayed = message("history_replay", "m1");
    assertThat(replayed.state()).isEqualTo("pending");
    assertThat(replayed.diedAt()).isNull();
    assertThat(replayed.failingSince()).isNull();
    assertThat(replayed.attempts()).extracting(FailedAttempt::error).containsExactly("boom");
  }

  @Test
  void a_search_returns_the_history_and_retention_strips_it_with_the_error() {
    inbox("history_strip", 3).send(NewMessage.of("m1", "t", "agg-1", "{}"));
    sql("SELECT inbox.mark_failed('history_strip', 'm1', 'customer 42 unknown')");
    assertThat(manager.inbox("history_strip").operations().findMessages(null, "agg-1", null, 10))
        .singleElement()
        .satisfies(
            m ->
                assertThat(m.attempts())
                    .extracting(FailedAttempt::error)
                    .containsExactly("customer 42 unknown"));

    // Processed, then past the processed retention but inside the dedup window: stripped.
    sql("SELECT inbox.mark_processed('history_strip', 'm1')");
    sql(
        "UPDATE inbox.inbox_config SET processed_retention = interval '0',"
            + " dedup_retention = interval '1 hour' WHERE inbox_name = 'history_strip'");
    sql("UPDATE inbox.history_strip SET processed_at = now() - interval '1 minute'");
    sql("SELECT inbox.purge_inbox('history_strip')");
    assertThat(
            count(
                "SELECT count(*) FROM inbox.history_strip WHERE attempts IS NULL AND error IS NULL"))
        .isEqualTo(1);
    assertThat(message("history_strip", "m1").attempts()).isEmpty();
  }

  @Test
  void claiming_and_processing_write_no_history() {
    inbox("history_success", 3).send(NewMessage.of("m1", "t", null, "{}"));
    jdbi.useTransaction(
        h -> {
          h.createQuery("SELECT event_id FROM inbox.claim_history_success(1)")
              .mapTo(String.class)
              .one();
          h.execute("SELECT inbox.mark_processed('history_success', 'm1')");
        });
    assertThat(
            count(
                "SELECT num_nulls(failing_since, last_failed_at, died_at, attempts)"
                    + " FROM inbox.history_success WHERE processed_at IS NOT NULL"))
        .isEqualTo(4);
    assertThat(message("history_success", "m1").attempts()).isEmpty();
  }

  @Test
  void a_tracked_table_keeps_its_history_in_the_side_table() {
    sql("CREATE SCHEMA IF NOT EXISTS app");
    sql(
        "CREATE TABLE app.history_events (id bigint PRIMARY KEY, kind text,"
            + " received_at timestamptz DEFAULT now(), processed_at timestamptz)");
    sql(
        "SELECT inbox.enable_inbox_tracking('history_tracked', 'app.history_events',"
            + " p_id_column => 'id', p_event_type_column => 'kind', p_max_retries => 2)");
    sql("INSERT INTO app.history_events (id, kind) VALUES (7, 'invoice.sent')");
    sql("SELECT inbox.mark_failed('history_tracked', '7', 'smtp 421')");
    sql(
        "SELECT * FROM inbox.record_failures('history_tracked', ARRAY['7'], ARRAY['smtp 450'],"
            + " ARRAY[NULL::interval], ARRAY[false])");
    MessageDetail dead = message("history_tracked", "7");
    assertThat(dead.state()).isEqualTo("dead");
    assertThat(dead.attempts())
        .extracting(FailedAttempt::error)
        .containsExactly("smtp 421", "smtp 450");
    assertThat(dead.diedAt()).isEqualTo(dead.attempts().get(1).at());
    assertThat(dead.nextAttemptAt()).isNotNull();
    assertThat(
            count(
                "SELECT count(*) FROM inbox.history_tracked_retry_state WHERE attempts IS NOT NULL"))
        .isEqualTo(1);
    assertThat(manager.inbox("history_tracked").operations().dlqGroups(10))
        .extracting(DlqGroup::firstDiedAt)
        .containsExactly(dead.diedAt());
    assertThat(
            manager.inbox("history_tracked").operations().throughput(5).stream()
                .mapToLong(ThroughputPoint::failed)
                .sum())
        .isEqualTo(2);

    sql("SELECT inbox.replay_inbox_messages('history_tracked', ARRAY['7'])");
    assertThat(message("history_tracked", "7").diedAt()).isNull();
  }

  @Test
  void throughput_counts_failed_attempts_per_minute_next_to_processed_ones() {
    PostgresInbox inbox = inbox("history_rate", 5);
    inbox.sendAll(
        IntStream.range(0, 4).mapToObj(i -> NewMessage.of("m" + i, "t", null, "{}")).toList());
    sql("SELECT inbox.mark_failed('history_rate', 'm0', 'a')");
    sql("SELECT inbox.mark_failed('history_rate', 'm0', 'b')");
    sql("SELECT inbox.mark_failed('history_rate', 'm1', 'c')");
    sql("SELECT inbox.mark_processed('history_rate', 'm2')");
    List<ThroughputPoint> points = inbox.operations().throughput(5);
    assertThat(points).hasSize(5);
    assertThat(points.stream().mapToLong(ThroughputPoint::failed).sum()).isEqualTo(3);
    assertThat(points.stream().mapToLong(ThroughputPoint::processed).sum()).isEqualTo(1);
    // Index-backed: only messages that failed have an entry in <name>_failed_idx.
    assertThat(count("SELECT count(*) FROM pg_class WHERE relname = 'history_rate_failed_idx'"))
        .isEqualTo(1);
  }

  @Test
  void an_ordered_head_is_blocked_since_its_first_failure_then_since_it_died() {
    PostgresInbox inbox = inbox("history_ordered", 3);
    manager.enableOrdering("history_ordered");
    inbox.send(NewMessage.of("head", "t", "order-1", "{}"));
    inbox.sendAll(
        IntStream.range(0, 3)
            .mapToObj(i -> NewMessage.of("next-" + i, "t", "order-1", "{}"))
            .toList());
    inbox.send(NewMessage.of("free", "t", "order-2", "{}"));
    // The blocked aggregate's messages have waited for ten days; order-2's arrived just now.
    sql(
        "UPDATE inbox.history_ordered SET received_at = now() - interval '10 days'"
            + " WHERE aggregate_id = 'order-1'");
    sql("SELECT inbox.mark_failed('history_ordered', 'head', 'first', interval '1 hour')");
    Instant firstFailure =
        time("SELECT failing_since FROM inbox.history_ordered WHERE event_id = 'head'");
    sql("SELECT inbox.mark_failed('history_ordered', 'head', 'second', interval '1 hour')");

    BlockedAggregate backingOff = inbox.operations().blockedAggregates(10).get(0);
    assertThat(backingOff.reason()).isEqualTo(BlockedAggregate.Reason.BACKING_OFF);
    assertThat(backingOff.blockedSince()).isEqualTo(firstFailure);

    // Waiting behind the blocked head is a state of its own, as health counts it.
    PartitionLag lag = inbox.operations().partitionLag().get(0);
    assertThat(lag.behindBlocked()).isEqualTo(3);
    assertThat(lag.waiting()).isEqualTo(1);
    assertThat(lag.backingOff()).isEqualTo(1);
    // They wait for the head, not for a worker: no lag, as health's age leaves them out too.
    assertThat(lag.oldestEligibleAgeSeconds()).isLessThan(86_400);
    // Health's blocked count has the backing-off head too, which the lag counts as backing off.
    String blocked = "SELECT (inbox.inbox_health('history_ordered') ->> 'blocked_count')::bigint";
    assertThat(count(blocked)).isEqualTo(lag.behindBlocked() + lag.backingOff());

    sql("SELECT inbox.mark_dead('history_ordered', 'head', 'given up')");
    BlockedAggregate dead = inbox.operations().blockedAggregates(10).get(0);
    assertThat(dead.reason()).isEqualTo(BlockedAggregate.Reason.DEAD_LETTER);
    assertThat(dead.blockedSince()).isEqualTo(message("history_ordered", "head").diedAt());
    assertThat(inbox.operations().partitionLag().get(0).behindBlocked()).isEqualTo(3);
    assertThat(count(blocked)).isEqualTo(3);
  }

  @Test
  void a_claimed_head_is_blocked_since_its_claim() {
    PostgresInbox inbox = inbox("history_claimed", 3);
    manager.enableOrdering("history_claimed");
    inbox.send(NewMessage.of("head", "t", "order-1", "{}"));
    inbox.send(NewMessage.of("next", "t", "order-1", "{}"));
    try (Handle claimer = jdbi.open()) {
      claimer.begin();
      claimer
          .createQuery("SELECT event_id FROM inbox.claim_history_claimed(1)")
          .mapTo(String.class)
          .one();
      Instant claimedAt =
          claimer.createQuery("SELECT now()").mapTo(OffsetDateTime.class).one().toInstant();

      BlockedAggregate claimed = inbox.operations().blockedAggregates(10).get(0);
      assertThat(claimed.reason()).isEqualTo(BlockedAggregate.Reason.CLAIMED);
      assertThat(claimed.blockedSince()).isEqualTo(claimedAt);
      // Held by a worker, not stalled: the message behind it waits for that worker.
      assertThat(inbox.operations().partitionLag().get(0).behindBlocked()).isZero();
      claimer.rollback();
    }
  }
}
