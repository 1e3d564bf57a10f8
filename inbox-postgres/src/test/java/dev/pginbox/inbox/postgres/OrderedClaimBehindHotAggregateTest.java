package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * The ordered claim when the front of the claim order is one aggregate's long queue: the claim
 * walks a bounded window of the claim order, then falls back to the aggregates' heads (claim_<name>
 * in definitions/create_inbox.sql). The window is 2 * limit + 100 messages, so a queue of a few
 * hundred messages of one aggregate exercises the fallback.
 */
class OrderedClaimBehindHotAggregateTest extends InboxTestSupport {

  private static List<String> claim(Handle h, String inbox, int limit) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(?)", limit)
        .mapTo(String.class)
        .list();
  }

  /** Claims in a transaction of its own and commits (= processed). */
  private static List<String> claimAndCommit(String inbox, int limit) {
    return jdbi.inTransaction(h -> claim(h, inbox, limit));
  }

  private static int countWaiting(String inbox, Integer limit) {
    return jdbi.withHandle(
        h -> h.select("SELECT inbox.count_waiting(?, ?)", inbox, limit).mapTo(Integer.class).one());
  }

  private static List<NewMessage> hot(String aggregate, int count) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      messages.add(
          NewMessage.of(String.format("%s-%04d", aggregate, i), "normal", aggregate, null));
    }
    return messages;
  }

  @Test
  void heads_behind_a_long_blocked_aggregate_are_handed_out_and_nothing_behind_a_head() {
    PostgresInbox inbox =
        manager.createInbox("hot_front", InboxOptions.builder().maxRetries(1).build());
    manager.enableOrdering("hot_front", "aggregate_id", "seq");
    manager.enablePriority("hot_front", "event_type", Map.of("urgent", 1, "normal", 5));
    inbox.sendAll(hot("hot", 400));
    List<NewMessage> rest = new ArrayList<>();
    for (int a = 0; a < 20; a++) {
      rest.add(NewMessage.of("x" + a + "-1", "normal", "x" + a, null));
      rest.add(NewMessage.of("x" + a + "-2", "normal", "x" + a, null));
    }
    rest.add(NewMessage.of("dead-1", "normal", "dead", null));
    rest.add(NewMessage.of("dead-2", "normal", "dead", null));
    rest.add(NewMessage.of("loose-1", "normal", null, null));
    rest.add(NewMessage.of("loose-2", "normal", null, null));
    rest.add(NewMessage.of("late-urgent", "urgent", "late", null));
    // sendAll inserts in event id order; send one by one to fix the arrival order.
    rest.forEach(inbox::send);
    assertThat(inbox.markFailed("dead-1", "boom"))
        .isEqualTo(dev.pginbox.inbox.MarkFailedResult.DEAD);

    // The batching rule's count follows the same rule: the heads, not the blocked queue.
    assertThat(countWaiting("hot_front", 100)).isEqualTo(24); // late, hot, x0..x19, 2 loose
    assertThat(countWaiting("hot_front", 5)).isEqualTo(5);
    assertThat(countWaiting("hot_front", null)).isEqualTo(24);

    try (Handle worker1 = jdbi.open()) {
      worker1.begin();
      // Priority first, then arrival: the urgent head, the hot head, the first x heads.
      assertThat(claim(worker1, "hot_front", 5))
          .containsExactly("late-urgent", "hot-0001", "x0-1", "x1-1", "x2-1");
      // Another worker, while those are held: every other head, nothing behind a head (no
      // hot-0002, no x0-2 .. x2-2, nothing of the aggregate whose head is dead), the
      // messages without aggregate.
      List<String> expected = new ArrayList<>();
      for (int a = 3; a < 20; a++) {
        expected.add("x" + a + "-1");
      }
      expected.add("loose-1");
      expected.add("loose-2");
      assertThat(claimAndCommit("hot_front", 100)).containsExactlyElementsOf(expected);
      worker1.commit();
    }
    // Now the second messages of the aggregates are heads.
    List<String> expected = new ArrayList<>(List.of("hot-0002"));
    for (int a = 0; a < 20; a++) {
      expected.add("x" + a + "-2");
    }
    assertThat(claimAndCommit("hot_front", 100)).containsExactlyElementsOf(expected);
    assertThat(claimAndCommit("hot_front", 100)).containsExactly("hot-0003");
  }

  @Test
  void one_claim_never_takes_two_messages_of_one_aggregate_across_its_two_phases() {
    PostgresInbox inbox = manager.createInbox("two_phase");
    manager.enableOrdering("two_phase", "aggregate_id", "seq");
    inbox.send(NewMessage.of("a-1", "t", "A", null));
    inbox.sendAll(hot("hot", 300));
    inbox.send(NewMessage.of("a-2", "t", "A", null));
    inbox.send(NewMessage.of("b-1", "t", "B", null));
    // The window (2 * 5 + 100) holds a-1 and hot-0001 as heads and is otherwise blocked, so the
    // fallback runs; it must not take a-2 or hot-0002, although this transaction already
    // marked a-1 and hot-0001 processed.
    assertThat(claimAndCommit("two_phase", 5)).containsExactly("a-1", "hot-0001", "b-1");
    assertThat(claimAndCommit("two_phase", 5)).containsExactly("hot-0002", "a-2");
  }
}
