package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * claim_<name>(..., p_skip_top_priority => true): only messages below the most urgent priority
 * waiting, when any can be claimed; else an ordinary claim. Plain and ordered.
 */
class SkipTopPriorityClaimTest extends InboxTestSupport {

  private static List<String> claim(Handle h, String inbox, int limit, boolean skipTop) {
    return h.select(
            "SELECT event_id FROM inbox.claim_" + inbox + "(?, p_skip_top_priority => ?)",
            limit,
            skipTop)
        .mapTo(String.class)
        .list();
  }

  private static List<String> claimAndCommit(String inbox, int limit, boolean skipTop) {
    return jdbi.inTransaction(h -> claim(h, inbox, limit, skipTop));
  }

  private static void priorityInbox(String name, boolean ordered) {
    PostgresInbox inbox = manager.createInbox(name);
    manager.enablePriority(name, "event_type", Map.of("urgent", 1, "normal", 2));
    if (ordered) {
      manager.enableOrdering(name);
    }
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      messages.add(NewMessage.of("u" + i, "urgent", "u" + i, null));
    }
    for (int i = 0; i < 3; i++) {
      messages.add(NewMessage.of("n" + i, "normal", "n" + i, null));
    }
    messages.add(NewMessage.of("low", "audit", "low", null)); // unmapped: priority 999
    inbox.sendAll(messages);
  }

  @Test
  void a_claim_that_skips_the_top_takes_the_next_priorities_in_claim_order() {
    for (boolean ordered : new boolean[] {false, true}) {
      String name = ordered ? "skip_ordered" : "skip_plain";
      priorityInbox(name, ordered);
      assertThat(claimAndCommit(name, 2, false)).containsExactly("u0", "u1");
      assertThat(claimAndCommit(name, 2, true)).containsExactly("n0", "n1");
      assertThat(claimAndCommit(name, 5, true)).containsExactly("n2", "low");
      assertThat(claimAndCommit(name, 2, false)).containsExactly("u2", "u3");
    }
  }

  @Test
  void with_only_the_top_priority_waiting_it_is_an_ordinary_claim() {
    for (boolean ordered : new boolean[] {false, true}) {
      String name = ordered ? "only_top_ordered" : "only_top_plain";
      priorityInbox(name, ordered);
      sql("DELETE FROM inbox." + name + " WHERE event_type <> 'urgent'");
      assertThat(claimAndCommit(name, 2, true)).containsExactly("u0", "u1");
    }
  }

  @Test
  void when_everything_below_the_top_is_held_by_another_claim_it_is_an_ordinary_claim() {
    priorityInbox("held_below", false);
    try (Handle other = jdbi.open()) {
      other.begin();
      assertThat(claim(other, "held_below", 10, true)).containsExactly("n0", "n1", "n2", "low");
      assertThat(claimAndCommit("held_below", 2, true)).containsExactly("u0", "u1");
      other.rollback();
    }
  }

  @Test
  void in_an_ordered_inbox_a_blocked_message_below_the_top_is_not_taken_out_of_order() {
    PostgresInbox inbox = manager.createInbox("skip_blocked");
    manager.enablePriority("skip_blocked", "event_type", Map.of("urgent", 1, "normal", 2));
    manager.enableOrdering("skip_blocked");
    inbox.sendAll(
        List.of(
            NewMessage.of("a-urgent", "urgent", "a", null),
            NewMessage.of("a-normal", "normal", "a", null),
            NewMessage.of("b-urgent", "urgent", "b", null)));
    // a-normal waits behind its aggregate's head: nothing below the top can be claimed.
    assertThat(claimAndCommit("skip_blocked", 1, true)).containsExactly("a-urgent");
    assertThat(claimAndCommit("skip_blocked", 1, true)).containsExactly("a-normal");
  }
}
