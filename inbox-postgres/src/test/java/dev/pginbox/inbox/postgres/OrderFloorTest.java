package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import java.sql.Connection;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * On an inbox ordered by seq, the head test ("is there an earlier unprocessed message of the
 * aggregate?") starts at the lowest claim floor, passing over the index entries below it, which
 * while the xmin horizon is held are the aggregate's messages processed since, and finds the dead
 * letters below it through an index of their own. Below the floor nothing may be passed that still
 * orders its aggregate: a dead letter, a replay that commits while the floors move, dead letters
 * that wait again.
 */
class OrderFloorTest extends InboxTestSupport {

  /** Ordered by seq: only there does the head test start at the floor. */
  private static PostgresInbox orderedInbox(String name, int maxRetries) {
    PostgresInbox inbox =
        manager.createInbox(name, InboxOptions.builder().maxRetries(maxRetries).build());
    manager.enableOrdering(name, "aggregate_id", "seq");
    return inbox;
  }

  /** {@code n} messages over {@code aggregates} aggregates, one transaction. */
  private static void send(PostgresInbox inbox, String prefix, int n, int aggregates) {
    inbox.sendAll(
        IntStream.range(0, n)
            .mapToObj(i -> NewMessage.of(prefix + i, "t", "agg-" + (i % aggregates), null))
            .toList());
  }

  /**
   * a0 of aggregate agg-a dies, the claimer's floors move far past it, and a1 of the same aggregate
   * arrives.
   */
  private static void deadLetterFarBelowTheFloors(PostgresInbox inbox, String name, Claimer claimer)
      throws Exception {
    inbox.send(NewMessage.of("a0", "t", "agg-a", null));
    claimer.execute("BEGIN");
    assertThat(claimer.claim(1)).containsExactly("a0");
    claimer.execute("SELECT inbox.mark_failed('" + name + "', 'a0', 'boom', interval '0')");
    claimer.execute("COMMIT");
    for (int round = 0; round < 5; round++) {
      send(inbox, "o" + round + "-", 20, 20);
      assertThat(claimer.claim(30)).hasSize(20);
    }
    inbox.send(NewMessage.of("a1", "t", "agg-a", null));
  }

  /**
   * 100 claims of 100 heads, without a sweep, from 12,000 messages over 100 aggregates: each
   * aggregate then has 100 messages processed (behind a held horizon, entries vacuum cannot remove)
   * and none of agg-a's taken (a1 waits behind a dead letter, where there is one).
   */
  private static void claimHundredTimes(Claimer claimer) throws Exception {
    claimer.execute("SET inbox.claim_floor_sweep_seconds = 3600");
    for (int i = 0; i < 100; i++) {
      assertThat(claimer.claim(100)).hasSize(100).doesNotContain("a1");
    }
  }

  @Test
  void while_the_horizon_is_held_a_head_test_reads_no_entry_of_messages_processed_before()
      throws Exception {
    String name = "order_floor_held";
    PostgresInbox inbox = orderedInbox(name, 3);
    send(inbox, "m", 12_000, 100);
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, name)) {
      claimHundredTimes(claimer);
      // Each aggregate has 100 messages processed behind the held horizon: a head test that
      // looked at them read 100 entries for each of the claim's 100 heads.
      long read =
          claimer.indexEntriesRead(
              name + "_ordering_idx", "SELECT count(*) FROM inbox.claim_" + name + "(100)");
      assertThat(read).isLessThan(1_000L);
      long counted =
          claimer.indexEntriesRead(
              name + "_ordering_idx", "SELECT inbox.count_waiting('" + name + "', 100)");
      assertThat(counted).isLessThan(1_000L);
      holder.rollback();
    }
    assertThat(count("SELECT count(*) FROM inbox." + name + " WHERE processed_at IS NULL"))
        .isEqualTo(1_900);
  }

  @Test
  void while_the_horizon_is_held_health_finds_the_heads_without_reading_processed_messages()
      throws Exception {
    String name = "order_floor_health";
    PostgresInbox inbox = orderedInbox(name, 1);
    String index = name + "_ordering_idx";
    try (Claimer claimer = new Claimer(database, name)) {
      deadLetterFarBelowTheFloors(inbox, name, claimer);
    }
    send(inbox, "m", 12_000, 100);
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, name);
        Claimer operator = new Claimer(database, name)) {
      operator.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      claimHundredTimes(claimer);
      // The operator's first call walks from the front and moves its floors.
      operator.execute("SELECT inbox.inbox_health('" + name + "')");
      Thread.sleep(50);
      // 101 aggregates with heads, each with 100 messages processed behind the held horizon: a
      // walk that looked at them read about 10,000 entries of the ordering index.
      for (String call :
          List.of(
              "SELECT inbox.inbox_health('" + name + "')",
              "SELECT count(*) FROM inbox.inbox_blocked_aggregates('" + name + "')",
              "SELECT inbox.count_blocked_aggregates('" + name + "')")) {
        assertThat(operator.indexEntriesRead(index, call)).as(call).isLessThan(1_000L);
      }
      // The dead letter far below the floors still blocks its aggregate.
      assertThat(
              operator.scalar(
                  "SELECT string_agg(aggregate_id || ' ' || reason || ' ' || event_id, ',')"
                      + " FROM inbox.inbox_blocked_aggregates('"
                      + name
                      + "')"))
          .isEqualTo("agg-a dead_letter a0");
      assertThat(operator.scalar("SELECT n FROM inbox.count_blocked_aggregates('" + name + "')"))
          .isEqualTo("1");
      assertThat(operator.scalar("SELECT inbox.stalled_aggregates('" + name + "')::text"))
          .isEqualTo("{agg-a}");
      holder.rollback();
    }
  }

  @Test
  void messages_a_dead_letter_holds_back_do_not_hold_the_claim_floors_back() throws Exception {
    String name = "order_floor_blocked";
    PostgresInbox inbox = orderedInbox(name, 1);
    try (Claimer claimer = new Claimer(database, name)) {
      deadLetterFarBelowTheFloors(inbox, name, claimer);
    }
    send(inbox, "m", 12_000, 100);
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, name)) {
      claimHundredTimes(claimer);
      // a1 waits behind the dead letter a0: a floor that stopped at it read, on every claim, the
      // 10,000 messages claimed since from both indexes.
      String claim = "SELECT count(*) FROM inbox.claim_" + name + "(100)";
      assertThat(claimer.indexEntriesRead(name + "_claim_idx", claim)).isLessThan(1_000L);
      assertThat(claimer.indexEntriesRead(name + "_ordering_idx", claim)).isLessThan(1_000L);
      // Once the dead letter is discarded, a1 is its aggregate's head, below floors that passed it:
      // the next claim takes it, not the session's next sweep.
      sql("SELECT inbox.discard_dead_letters('" + name + "', ARRAY['a0'])");
      assertThat(claimer.claim(200)).contains("a1");
      // So when retention deletes the dead letter.
      while (!claimer.claim(200).isEmpty()) {
        // drained
      }
      inbox.send(NewMessage.of("b0", "t", "agg-b", null));
      claimer.execute("BEGIN");
      assertThat(claimer.claim(200)).containsExactly("b0");
      claimer.execute("SELECT inbox.mark_failed('" + name + "', 'b0', 'boom', interval '0')");
      claimer.execute("COMMIT");
      inbox.send(NewMessage.of("b1", "t", "agg-b", null));
      send(inbox, "n", 100, 100);
      assertThat(claimer.claim(200)).hasSize(100).doesNotContain("b1");
      sql("SELECT inbox.alter_inbox('" + name + "', p_dlq_retention_hours => 0)");
      sql("SELECT inbox.purge_inbox('" + name + "')");
      assertThat(claimer.claim(200)).containsExactly("b1");
      holder.rollback();
    }
  }

  @Test
  void a_dead_letter_far_below_the_floors_still_holds_back_its_aggregate() throws Exception {
    String name = "order_floor_dead";
    PostgresInbox inbox = orderedInbox(name, 1);
    try (Claimer claimer = new Claimer(database, name)) {
      deadLetterFarBelowTheFloors(inbox, name, claimer);
      send(inbox, "p", 5, 5);
      assertThat(claimer.claim(30)).hasSize(5).doesNotContain("a1");
      assertThat(claimer.scalar("SELECT inbox.count_waiting('" + name + "', 10)")).isEqualTo("0");
      assertThat(claimer.scalar("SELECT inbox.await_held_head('" + name + "', 10)")).isEqualTo("f");
      // Dead letters that wait again (a higher max_retries) order their aggregate again.
      sql("SELECT inbox.alter_inbox('" + name + "', p_max_retries => 3)");
      assertThat(claimer.claim(10)).containsExactly("a0");
      assertThat(claimer.claim(10)).containsExactly("a1");
    }
  }

  @Test
  void a_replay_orders_its_aggregate_before_the_floors_move_again() throws Exception {
    String name = "order_floor_replay";
    PostgresInbox inbox = orderedInbox(name, 1);
    try (Claimer claimer = new Claimer(database, name)) {
      deadLetterFarBelowTheFloors(inbox, name, claimer);
      // The floors move once more (past the dead letter) and then not for a minute.
      claimer.execute("SET inbox.claim_floor_move_ms = 60000");
      assertThat(claimer.claim(10)).isEmpty();
      sql("SELECT inbox.replay_inbox_messages('" + name + "', ARRAY['a0'])");
      // a0 waits below the floors again: the claim does not see it until they move, and must not
      // take a1 before it meanwhile.
      assertThat(claimer.claim(10)).isEmpty();
    }
    // Floors that move (a new session's) find it first.
    try (Claimer claimer = new Claimer(database, name)) {
      assertThat(claimer.claim(10)).containsExactly("a0");
      assertThat(claimer.claim(10)).containsExactly("a1");
    }
  }
}
