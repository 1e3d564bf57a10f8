package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.MarkFailedResult;
import dev.pginbox.inbox.NewMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;

/**
 * claim_&lt;name&gt;(..., p_per_aggregate): an ordered claim that takes, behind each head, the
 * messages that follow it in its aggregate (ordered_claim_followers_template in
 * definitions/create_inbox.sql). Every chain must stop where taking the next message could hand an
 * aggregate over out of order or twice.
 */
class OrderedClaimFollowersTest extends InboxTestSupport {

  private static List<String> claim(Handle h, String inbox, int limit, int perAggregate) {
    return h.select(
            "SELECT event_id FROM inbox.claim_" + inbox + "(p_limit => ?, p_per_aggregate => ?)",
            limit,
            perAggregate)
        .mapTo(String.class)
        .list();
  }

  /** A claim in a session that has claimed nothing with runs before (see {@link #fresh}). */
  private static List<String> claimAndCommit(String inbox, int limit, int perAggregate) {
    return jdbi.inTransaction(
        h -> {
          fresh(h, inbox);
          return claim(h, inbox, limit, perAggregate);
        });
  }

  private static List<String> claimInTransaction(
      Handle h, String inbox, int limit, int perAggregate) {
    return h.inTransaction(t -> claim(t, inbox, limit, perAggregate));
  }

  /**
   * Forgets what this session's claims with runs found: a pooled connection keeps it, and a session
   * that found deep chains seeks fewer heads.
   */
  private static void fresh(Handle h, String inbox) {
    h.execute("SELECT set_config(?, '', false)", "pginbox_claim_runs." + inbox);
  }

  private static String runsState(Handle h, String inbox) {
    return h.select("SELECT coalesce(current_setting(?, true), '')", "pginbox_claim_runs." + inbox)
        .mapTo(String.class)
        .one();
  }

  private static PostgresInbox ordered(String name, InboxOptions options) {
    PostgresInbox inbox = manager.createInbox(name, options);
    manager.enableOrdering(name, "aggregate_id", "seq");
    return inbox;
  }

  /** Sends one by one, so the arrival order is the order of the arguments. */
  private static void send(PostgresInbox inbox, String... idsAndAggregates) {
    for (int i = 0; i < idsAndAggregates.length; i += 2) {
      inbox.send(NewMessage.of(idsAndAggregates[i], "normal", idsAndAggregates[i + 1], null));
    }
  }

  @Test
  void a_claim_takes_each_head_and_the_messages_right_behind_it_in_claim_order() {
    PostgresInbox inbox = ordered("runs", InboxOptions.defaults());
    send(inbox, "a1", "A", "b1", "B", "a2", "A", "a3", "A", "b2", "B", "a4", "A", "a5", "A");
    send(inbox, "loose", null, "b3", "B", "a6", "A");

    try (Handle worker1 = jdbi.open()) {
      fresh(worker1, "runs");
      worker1.begin();
      assertThat(claim(worker1, "runs", 100, 4))
          .containsExactly("a1", "b1", "a2", "a3", "b2", "a4", "loose", "b3");
      // While those are held nothing of A or B is a head to anyone else.
      assertThat(claimAndCommit("runs", 100, 4)).isEmpty();
      worker1.commit();
    }
    assertThat(claimAndCommit("runs", 100, 4)).containsExactly("a5", "a6");
    // The default is one message per aggregate, as before.
    send(inbox, "c1", "C", "c2", "C");
    assertThat(claimAndCommit("runs", 100, 1)).containsExactly("c1");
    assertThat(claimAndCommit("runs", 100, 1)).containsExactly("c2");
  }

  /**
   * After a claim whose followers filled its batch, the session's next claims seek heads for a
   * tenth of the batch and fill the rest with followers, so another worker finds heads. A claim
   * whose followers leave room takes more heads behind the last one and goes back to heads first.
   */
  @Test
  void a_session_that_finds_deep_chains_takes_fewer_heads_and_leaves_the_rest() {
    PostgresInbox inbox = ordered("deep", InboxOptions.defaults());
    List<String> hot = new ArrayList<>();
    for (int i = 1; i <= 30; i++) {
      hot.add(String.format("a%02d", i));
      send(inbox, hot.get(i - 1), "A");
    }
    try (Handle session = jdbi.open()) {
      fresh(session, "deep");
      assertThat(claimInTransaction(session, "deep", 10, 10)).isEqualTo(hot.subList(0, 10));
      assertThat(runsState(session, "deep")).isEqualTo("deep");
      List<String> heads = new ArrayList<>();
      for (int round = 1; round <= 3; round++) {
        for (char aggregate = 'b'; aggregate <= 'k'; aggregate++) {
          send(inbox, "" + aggregate + round, "" + aggregate);
          if (round == 1) {
            heads.add("" + aggregate + round);
          }
        }
      }
      session.begin();
      // One head and nine of its followers: every other aggregate's head is left ...
      assertThat(claim(session, "deep", 10, 10)).isEqualTo(hot.subList(10, 20));
      // ... for another worker, whose first claim takes heads first.
      assertThat(claimAndCommit("deep", 10, 10)).isEqualTo(heads);
      session.commit();
      assertThat(claimInTransaction(session, "deep", 10, 10)).isEqualTo(hot.subList(20, 30));
      // b2's only follower leaves room: more heads after b2, and heads first again.
      assertThat(claimInTransaction(session, "deep", 10, 10))
          .containsExactly("b2", "c2", "d2", "e2", "f2", "g2", "h2", "i2", "j2", "b3");
      assertThat(runsState(session, "deep")).isEmpty();
    }
  }

  @Test
  void a_batch_short_of_room_takes_every_aggregates_second_message_before_any_third() {
    PostgresInbox inbox = ordered("depth_first", InboxOptions.defaults());
    for (int i = 1; i <= 5; i++) {
      send(inbox, "a" + i, "A", "b" + i, "B");
    }
    assertThat(claimAndCommit("depth_first", 5, 10)).containsExactly("a1", "b1", "a2", "b2", "a3");
    // Whatever the cut left behind comes next, still in order.
    assertThat(claimAndCommit("depth_first", 3, 10)).containsExactly("b3", "a4", "b4");
    assertThat(claimAndCommit("depth_first", 10, 10)).containsExactly("a5", "b5");
  }

  /**
   * The room is first shared among all eleven heads (three followers each); the hot aggregate's
   * chain, read that deep without ending, is read on with the room the others left.
   */
  @Test
  void a_hot_aggregate_among_heads_without_followers_still_fills_the_batch() {
    PostgresInbox inbox = ordered("hot_among_quiet", InboxOptions.defaults());
    List<String> expected = new ArrayList<>();
    for (int i = 1; i <= 30; i++) {
      send(inbox, String.format("hot-%02d", i), "hot");
      expected.add(String.format("hot-%02d", i));
    }
    for (int i = 1; i <= 10; i++) {
      send(inbox, "quiet-" + i, "Q" + i);
      expected.add("quiet-" + i);
    }
    send(inbox, "hot-31", "hot");
    assertThat(claimAndCommit("hot_among_quiet", 40, 40)).containsExactlyElementsOf(expected);
    assertThat(claimAndCommit("hot_among_quiet", 40, 40)).containsExactly("hot-31");
  }

  @Test
  void a_chain_stops_at_a_message_that_backs_off_or_is_dead() {
    PostgresInbox inbox = ordered("stops", InboxOptions.builder().maxRetries(2).build());
    send(inbox, "a1", "A", "a2", "A", "a3", "A", "a4", "A");
    send(inbox, "b1", "B", "b2", "B", "b3", "B");
    assertThat(inbox.markFailed("a3", "backing off")).isEqualTo(MarkFailedResult.RETRY);
    assertThat(inbox.markFailed("b2", "first")).isEqualTo(MarkFailedResult.RETRY);
    assertThat(inbox.markFailed("b2", "second")).isEqualTo(MarkFailedResult.DEAD);
    // The retry an hour away, not the default second's backoff that a slow machine outlives.
    sql("UPDATE inbox.stops SET next_attempt_at = now() + interval '1 hour' WHERE event_id = 'a3'");

    // a3 waits for its retry and b2 is a dead letter: nothing behind either goes out.
    assertThat(claimAndCommit("stops", 100, 10)).containsExactly("a1", "a2", "b1");
    assertThat(claimAndCommit("stops", 100, 10)).isEmpty();
    sql("UPDATE inbox.stops SET next_attempt_at = now() WHERE event_id = 'a3'");
    assertThat(claimAndCommit("stops", 100, 10)).containsExactly("a3", "a4");
  }

  @Test
  void a_chain_stops_where_the_claim_order_would_hand_a_later_message_over_first() {
    PostgresInbox inbox = ordered("inverted", InboxOptions.defaults());
    manager.enablePriority("inverted", "event_type", Map.of("urgent", 1, "normal", 5));
    inbox.send(NewMessage.of("a1", "normal", "A", null));
    inbox.send(NewMessage.of("a2", "urgent", "A", null)); // more urgent, but behind a1
    inbox.send(NewMessage.of("a3", "urgent", "A", null));
    // The batch comes back in claim order (priority, seq): a2 would come before a1.
    assertThat(claimAndCommit("inverted", 100, 10)).containsExactly("a1");
    assertThat(claimAndCommit("inverted", 100, 10)).containsExactly("a2", "a3");
  }

  @Test
  void a_follower_another_transaction_holds_ends_its_chain_there() {
    PostgresInbox inbox = ordered("held", InboxOptions.defaults());
    send(inbox, "a1", "A", "a2", "A", "a3", "A", "a4", "A", "b1", "B", "b2", "B");
    try (Handle other = jdbi.open()) {
      other.begin();
      // An operator's (or any) transaction holding a3's row.
      other.execute("SELECT 1 FROM inbox.held WHERE event_id = 'a3' FOR UPDATE");
      try (Handle worker = jdbi.open()) {
        fresh(worker, "held");
        worker.begin();
        assertThat(claim(worker, "held", 100, 10)).containsExactly("a1", "a2", "b1", "b2");
        worker.commit();
      }
      other.commit();
    }
    assertThat(claimAndCommit("held", 100, 10)).containsExactly("a3", "a4");
  }

  @Test
  void heads_found_behind_a_long_queue_bring_their_followers_too() {
    PostgresInbox inbox = ordered("behind_hot", InboxOptions.defaults());
    List<NewMessage> hot = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      hot.add(NewMessage.of(String.format("hot-%04d", i), "normal", "hot", null));
    }
    inbox.sendAll(hot);
    send(inbox, "x1", "X", "x2", "X", "x3", "X");
    // The window (2 * 8 + 100) is the hot queue; the heads come from the enumeration (phase 2).
    assertThat(claimAndCommit("behind_hot", 8, 3))
        .containsExactly("hot-0001", "hot-0002", "hot-0003", "x1", "x2", "x3");
    assertThat(claimAndCommit("behind_hot", 2, 3)).containsExactly("hot-0004", "hot-0005");
  }

  @Test
  void the_byte_budget_cuts_the_batch_after_a_message_never_before_its_predecessor() {
    PostgresInbox inbox = ordered("budget", InboxOptions.defaults());
    String big = "{\"pad\": \"" + "x".repeat(400) + "\"}";
    for (int i = 1; i <= 4; i++) {
      inbox.send(NewMessage.of("a" + i, "normal", "A", big));
      inbox.send(NewMessage.of("b" + i, "normal", "B", big));
    }
    long one = count("SELECT pg_column_size(payload) FROM inbox.budget WHERE event_id = 'a1'");
    List<String> claimed =
        jdbi.inTransaction(
            h ->
                h.select(
                        "SELECT event_id FROM inbox.claim_budget(p_limit => 100,"
                            + " p_max_bytes => ?, p_per_aggregate => 4)",
                        3 * one + one / 2)
                    .mapTo(String.class)
                    .list());
    assertThat(claimed).containsExactly("a1", "b1", "a2");
    assertThat(claimAndCommit("budget", 100, 4)).containsExactly("b2", "a3", "b3", "a4", "b4");
  }

  @Test
  void messages_without_an_aggregate_and_plain_inboxes_are_not_changed() {
    PostgresInbox plain = manager.createInbox("plain_runs");
    send(plain, "p1", "A", "p2", "A", "p3", null);
    assertThat(claimAndCommit("plain_runs", 2, 5)).containsExactly("p1", "p2");
    PostgresInbox inbox = ordered("no_aggregate", InboxOptions.defaults());
    send(inbox, "n1", null, "n2", null, "a1", "A", "a2", "A");
    assertThat(claimAndCommit("no_aggregate", 3, 5)).containsExactly("n1", "n2", "a1");
  }

  @Test
  void fewer_than_one_message_per_aggregate_is_refused() {
    ordered("refused", InboxOptions.defaults());
    for (String value : new String[] {"0", "NULL"}) {
      assertThatThrownBy(
              () ->
                  jdbi.useHandle(
                      h ->
                          h.execute(
                              "SELECT * FROM inbox.claim_refused(p_limit => 10, p_per_aggregate => "
                                  + value
                                  + ")")))
          .isInstanceOf(UnableToExecuteStatementException.class)
          .hasMessageContaining("messages per aggregate must be at least 1");
    }
  }
}
