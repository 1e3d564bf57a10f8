package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.NewMessage;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * The byte budget of claim_<name> (p_max_bytes): a batch holds at most that many payload bytes
 * (pg_column_size) but always at least one message, in the plain and the ordered claim.
 */
class ClaimByteBudgetTest extends InboxTestSupport {

  /** A JSON payload of exactly {@code bytes} characters, never compressed (random-looking). */
  private static String payload(int bytes, int seed) {
    StringBuilder sb = new StringBuilder("{\"d\":\"");
    java.util.Random random = new java.util.Random(seed);
    while (sb.length() < bytes - 2) {
      sb.append((char) ('a' + random.nextInt(26)));
    }
    return sb.append("\"}").toString();
  }

  private static List<String> claim(Handle h, String inbox, int limit, Long maxBytes) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(?, NULL, ?)", limit, maxBytes)
        .mapTo(String.class)
        .list();
  }

  private static List<String> claimAndCommit(String inbox, int limit, Long maxBytes) {
    return jdbi.inTransaction(h -> claim(h, inbox, limit, maxBytes));
  }

  private static long storedSize(String inbox, String eventId) {
    return count(
        "SELECT pg_column_size(payload) FROM inbox." + inbox + " WHERE event_id = ?", eventId);
  }

  private static PostgresInbox inboxWith(String name, boolean ordered, int... sizes) {
    PostgresInbox inbox = manager.createInbox(name);
    if (ordered) {
      manager.enableOrdering(name);
    }
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      messages.add(NewMessage.of("m" + i, "t", "agg" + i, payload(sizes[i], i)));
    }
    inbox.sendAll(messages);
    return inbox;
  }

  @Test
  void a_batch_stops_before_its_payloads_pass_the_budget_plain_and_ordered() {
    for (boolean ordered : new boolean[] {false, true}) {
      String name = ordered ? "budget_ordered" : "budget_plain";
      inboxWith(name, ordered, 1000, 1000, 1000, 1000, 1000);
      long one = storedSize(name, "m0");
      assertThat(claimAndCommit(name, 10, 2 * one + one / 2)).containsExactly("m0", "m1");
      assertThat(claimAndCommit(name, 10, 2 * one)).containsExactly("m2", "m3");
      assertThat(claimAndCommit(name, 10, null)).containsExactly("m4");
    }
  }

  @Test
  void a_message_bigger_than_the_budget_is_claimed_alone_and_the_rest_follow() {
    for (boolean ordered : new boolean[] {false, true}) {
      String name = ordered ? "big_ordered" : "big_plain";
      inboxWith(name, ordered, 5000, 100, 100);
      assertThat(claimAndCommit(name, 10, 1000L)).containsExactly("m0");
      assertThat(claimAndCommit(name, 10, 1000L)).containsExactly("m1", "m2");
    }
  }

  @Test
  void rows_past_the_budget_stay_pending_when_the_batch_commits() {
    inboxWith("budget_rest", false, 1000, 1000, 1000);
    assertThat(claimAndCommit("budget_rest", 10, 1L)).containsExactly("m0");
    assertThat(count("SELECT count(*) FROM inbox.budget_rest WHERE processed_at IS NULL"))
        .isEqualTo(2);
  }

  @Test
  void the_ordered_fallback_past_a_hot_aggregate_keeps_to_what_the_window_left_of_the_budget() {
    PostgresInbox inbox = manager.createInbox("budget_hot");
    manager.enableOrdering("budget_hot");
    List<NewMessage> messages = new ArrayList<>();
    // 300 messages of one aggregate fill the window (2 * limit + 100) so the heads behind them
    // come from the second phase.
    for (int i = 0; i < 300; i++) {
      messages.add(NewMessage.of(String.format("hot-%03d", i), "t", "hot", payload(100, i)));
    }
    for (int i = 0; i < 5; i++) {
      messages.add(NewMessage.of("x" + i, "t", "x" + i, payload(1000, i)));
    }
    inbox.sendAll(messages);
    long hot = storedSize("budget_hot", "hot-000");
    long x = storedSize("budget_hot", "x0");
    assertThat(claimAndCommit("budget_hot", 10, hot + 2 * x))
        .containsExactly("hot-000", "x0", "x1");
  }

  @Test
  void a_budget_below_one_byte_is_an_error() {
    inboxWith("budget_zero", false, 100);
    assertThatThrownBy(() -> claimAndCommit("budget_zero", 10, 0L))
        .isInstanceOf(UnableToExecuteStatementException.class)
        .cause()
        .isInstanceOf(PSQLException.class)
        .satisfies(e -> assertThat(((PSQLException) e).getSQLState()).isEqualTo("22023"));
  }
}
