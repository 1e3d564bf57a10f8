package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import java.sql.Connection;
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

  @Test
  void while_the_horizon_is_held_a_head_test_reads_no_entry_of_messages_processed_before()
      throws Exception {
    String name = "order_floor_held";
    PostgresInbox inbox = orderedInbox(name, 3);
    send(inbox, "m", 12_000, 100);
    try (Connection holder = database.connect();
        Claimer claimer = new Claimer(database, name)) {
      holder.setAutoCommit(false);
      holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      holder.createStatement().executeQuery("SELECT count(*) FROM pg_class").close();
      claimer.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      for (int i = 0; i < 100; i++) {
        assertThat(claimer.claim(100)).hasSize(100);
      }
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
