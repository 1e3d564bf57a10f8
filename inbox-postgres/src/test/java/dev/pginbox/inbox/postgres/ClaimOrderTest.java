package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/** Priority and per-aggregate ordering, as seen by _pending, next_<name> and claim_<name>. */
class ClaimOrderTest extends InboxTestSupport {

  private static List<String> claim(Handle h, String inbox, int limit) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(?)", limit)
        .mapTo(String.class)
        .list();
  }

  /** Claims in a transaction of its own and commits (= processed). */
  private static List<String> claimAndCommit(String inbox, int limit) {
    return jdbi.inTransaction(h -> claim(h, inbox, limit));
  }

  @Test
  void priority_orders_pending_and_claim_and_applies_to_messages_already_waiting() {
    PostgresInbox inbox = manager.createInbox("prio");
    inbox.sendAll(
        List.of(
            NewMessage.of("low-1", "audit", "a", null),
            NewMessage.of("normal-1", "order.placed", "b", null),
            NewMessage.of("urgent-1", "order.cancelled", "c", null)));
    manager.enablePriority("prio", "event_type", Map.of("order.cancelled", 1, "order.placed", 2));
    inbox.sendAll(
        List.of(
            NewMessage.of("urgent-2", "order.cancelled", "d", null),
            NewMessage.of("low-2", "audit", "e", null)));

    assertThat(inbox.pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("urgent-1", "urgent-2", "normal-1", "low-1", "low-2");
    assertThat(inbox.pending(10))
        .extracting(InboxMessage::priority)
        .containsExactly(1, 1, 2, 999, 999);
    assertThat(claimAndCommit("prio", 3)).containsExactly("urgent-1", "urgent-2", "normal-1");
    assertThat(claimAndCommit("prio", 3)).containsExactly("low-1", "low-2");
  }

  @Test
  void ordering_hands_out_only_the_head_of_each_aggregate() {
    PostgresInbox inbox = manager.createInbox("ordered");
    manager.enableOrdering("ordered");
    inbox.sendAll(
        List.of(
            NewMessage.of("a1", "t", "A", null),
            NewMessage.of("b1", "t", "B", null),
            NewMessage.of("a2", "t", "A", null),
            NewMessage.of("b2", "t", "B", null),
            NewMessage.of("a3", "t", "A", null)));
    assertThat(strings("SELECT event_id FROM inbox.next_ordered ORDER BY aggregate_id"))
        .containsExactly("a1", "b1");

    // jdbi.open(): nested jdbi callbacks on one thread would share the handle (and transaction).
    try (Handle worker1 = jdbi.open()) {
      worker1.begin();
      assertThat(claim(worker1, "ordered", 10)).containsExactly("a1", "b1");
      // While worker 1 holds the heads, another worker gets nothing of those aggregates.
      assertThat(claimAndCommit("ordered", 10)).isEmpty();
      worker1.commit();
    }
    assertThat(strings("SELECT event_id FROM inbox.next_ordered ORDER BY aggregate_id"))
        .containsExactly("a2", "b2");
    assertThat(claimAndCommit("ordered", 10)).containsExactly("a2", "b2");
    assertThat(claimAndCommit("ordered", 10)).containsExactly("a3");
  }

  @Test
  void ordering_defaults_to_arrival_on_a_managed_inbox_and_received_at_on_a_tracked_table() {
    PostgresInbox inbox = manager.createInbox("arrival");
    manager.enableOrdering("arrival");
    // "late" is sent by a transaction that started first (its received_at is the earlier one)
    // but inserts after "early" committed: arrival order hands out "early" first.
    try (Handle slow = jdbi.open()) {
      slow.begin();
      slow.execute("SELECT pg_sleep(0.01)");
      inbox.send(NewMessage.of("early", "t", "A", null));
      slow.execute(
          "INSERT INTO inbox.arrival (event_id, event_type, aggregate_id) VALUES ('late', 't', 'A')");
      slow.commit();
    }
    assertThat(
            count(
                "SELECT count(*) FROM inbox.arrival WHERE event_id = 'late' AND received_at <"
                    + " (SELECT received_at FROM inbox.arrival WHERE event_id = 'early')"))
        .isOne();
    assertThat(claimAndCommit("arrival", 10)).containsExactly("early");
    assertThat(claimAndCommit("arrival", 10)).containsExactly("late");

    sql("CREATE SCHEMA IF NOT EXISTS shop");
    sql(
        "CREATE TABLE shop.arrivals (event_id text PRIMARY KEY, event_type text, aggregate_id text,"
            + " received_at timestamptz NOT NULL DEFAULT now(), processed_at timestamptz)");
    sql("SELECT inbox.enable_inbox_tracking('arrivals', 'shop.arrivals')");
    manager.enableOrdering("arrivals");
    assertThat(
            strings(
                "SELECT inbox_name || ' ' || sequence_column FROM inbox.inbox_ordering_config"
                    + " WHERE inbox_name IN ('arrival', 'arrivals') ORDER BY 1"))
        .containsExactly("arrival seq", "arrivals received_at");
  }

  @Test
  void one_sendAll_keeps_the_callers_order_within_an_aggregate_whatever_the_event_ids() {
    PostgresInbox inbox = manager.createInbox("list_order");
    manager.enableOrdering("list_order"); // by received_at, equal within one statement
    // Event ids that sort against the list order, two aggregates interleaved, and a duplicate
    // inside the batch (the first occurrence is the one kept).
    inbox.sendAll(
        List.of(
            NewMessage.of("z-a-v1", "t", "A", "{\"v\":1}"),
            NewMessage.of("y-b-v1", "t", "B", null),
            NewMessage.of("m-a-v2", "t", "A", null),
            NewMessage.of("z-a-v1", "t", "A", "{\"v\":99}"),
            NewMessage.of("c-b-v2", "t", "B", null),
            NewMessage.of("a-a-v3", "t", "A", null)));

    assertThat(inbox.pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("z-a-v1", "y-b-v1", "m-a-v2", "c-b-v2", "a-a-v3");
    assertThat(strings("SELECT payload->>'v' FROM inbox.list_order WHERE event_id = 'z-a-v1'"))
        .containsExactly("1");
    assertThat(claimAndCommit("list_order", 10)).containsExactly("z-a-v1", "y-b-v1");
    assertThat(claimAndCommit("list_order", 10)).containsExactly("m-a-v2", "c-b-v2");
    assertThat(claimAndCommit("list_order", 10)).containsExactly("a-a-v3");
  }

  @Test
  void a_backing_off_head_blocks_only_its_aggregate_and_a_dead_head_blocks_until_replayed() {
    PostgresInbox inbox =
        manager.createInbox("blocking", InboxOptions.builder().maxRetries(2).build());
    manager.enableOrdering("blocking", "aggregate_id", "seq");
    inbox.sendAll(
        List.of(
            NewMessage.of("a1", "t", "A", null), NewMessage.of("a2", "t", "A", null),
            NewMessage.of("b1", "t", "B", null), NewMessage.of("b2", "t", "B", null)));

    jdbi.useTransaction(
        h -> {
          assertThat(claim(h, "blocking", 10)).containsExactly("a1", "b1");
          h.select("SELECT inbox.mark_failed('blocking', 'a1', 'not yet', interval '1 hour')")
              .mapTo(String.class)
              .one();
        });
    // a1 backs off for an hour: A waits behind it, B goes on.
    assertThat(claimAndCommit("blocking", 10)).containsExactly("b2");
    assertThat(claimAndCommit("blocking", 10)).isEmpty();
    assertThat(strings("SELECT event_id FROM inbox.next_blocking")).containsExactly("a1");

    // a1 dies: still the head, so a2 stays blocked.
    assertThat(inbox.markFailed("a1", "dead now"))
        .isEqualTo(dev.pginbox.inbox.MarkFailedResult.DEAD);
    sql("UPDATE inbox.blocking SET next_attempt_at = '-infinity'");
    assertThat(claimAndCommit("blocking", 10)).isEmpty();
    assertThat(strings("SELECT event_id FROM inbox.next_blocking")).containsExactly("a1");

    assertThat(inbox.operations().replay(DeadLetterSelection.ids(List.of("a1")))).isEqualTo(1);
    assertThat(claimAndCommit("blocking", 10)).containsExactly("a1");
    assertThat(claimAndCommit("blocking", 10)).containsExactly("a2");
  }

  @Test
  void priority_across_aggregates_strict_order_within_one() {
    PostgresInbox inbox = manager.createInbox("prio_ordered");
    manager.enableOrdering("prio_ordered");
    manager.enablePriority("prio_ordered", "event_type", Map.of("urgent", 1, "normal", 5));
    inbox.sendAll(
        List.of(
            NewMessage.of("a1-normal", "normal", "A", null),
            NewMessage.of("a2-urgent", "urgent", "A", null),
            NewMessage.of("b1-urgent", "urgent", "B", null),
            NewMessage.of("c1-normal", "normal", "C", null)));
    assertThat(claimAndCommit("prio_ordered", 10))
        .containsExactly("b1-urgent", "a1-normal", "c1-normal");
    assertThat(claimAndCommit("prio_ordered", 10)).containsExactly("a2-urgent");
  }

  @Test
  void claim_restricted_to_buckets_only_returns_messages_of_those_buckets() {
    PostgresInbox inbox = manager.createInbox("bucketed");
    for (int i = 0; i < 40; i++) {
      inbox.send(NewMessage.of("m" + i, "t", "agg-" + i, null));
    }
    List<String> claimed =
        jdbi.inTransaction(
            h ->
                h.select(
                        "SELECT aggregate_id FROM inbox.claim_bucketed(100, inbox.inbox_partition_buckets(1, 3))")
                    .mapTo(String.class)
                    .list());
    assertThat(claimed)
        .isNotEmpty()
        .hasSizeLessThan(40)
        .allSatisfy(
            agg -> assertThat(dev.pginbox.inbox.Partitioning.isMyPartition(agg, 1, 3)).isTrue());
  }
}
