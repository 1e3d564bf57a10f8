package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.MarkFailedResult;
import dev.pginbox.inbox.NewMessage;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * The ordered claim of a worker whose share of the aggregates is smaller than its batch (several
 * workers, each with its buckets; or few aggregates): its window is mostly each aggregate's next
 * messages, and it gets every head of its share from the window. Such a claim used to probe every
 * message of its window for an earlier one of its aggregate, test the window again for phase 2 and
 * enumerate every aggregate's head, finding nothing new, on every claim (claim_&lt;name&gt; in
 * definitions/create_inbox.sql; docs/performance.md, "Ordered claim").
 */
class OrderedClaimShareTest extends InboxTestSupport {

  private static final Pattern PROBE =
      Pattern.compile("Index Only Scan Backward using \\w+_ordering_idx .*?loops=(\\d+)\\)");

  private static List<String> claim(Handle h, String inbox, int limit) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(?)", limit)
        .mapTo(String.class)
        .list();
  }

  /** The session's last word on the inbox's windows: "claims that skip phase 2 / heads found". */
  private static String share(Handle h, String inbox) {
    return h.select("SELECT current_setting(?, true)", "pginbox_claim_share." + inbox)
        .mapTo(String.class)
        .one();
  }

  /** Ten aggregates of forty messages each, sent round-robin: every window is mostly followers. */
  private static PostgresInbox tenAggregates(String name) {
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name, "aggregate_id", "received_at");
    inbox.sendAll(
        IntStream.range(0, 400)
            .mapToObj(i -> NewMessage.of(String.format("m%03d", i), "t", "a" + (i % 10), null))
            .toList());
    return inbox;
  }

  @Test
  void the_head_test_probes_only_each_aggregates_earliest_message_in_the_window() throws Exception {
    tenAggregates("share_probes");
    List<String> plans;
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      // The session's first claim does not fill its limit (ten heads of 100).
      s.execute("SELECT count(*) FROM inbox.claim_share_probes(100)");
      explainEveryStatement(s, true);
      c.setAutoCommit(false);
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM inbox.claim_share_probes(100)")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(10);
      }
      plans = notices(s);
      c.rollback();
    }
    // A window of 100 + 100 messages over ten aggregates: ten candidates. Every message of the
    // window was probed before (2 * 100 + 100 of them: loops=300), by the walk on every claim.
    List<Integer> probes = new ArrayList<>();
    for (String plan : plans) {
      Matcher m = PROBE.matcher(plan);
      while (m.find()) {
        probes.add(Integer.parseInt(m.group(1)));
      }
    }
    assertThat(probes).isNotEmpty().allSatisfy(loops -> assertThat(loops).isLessThanOrEqualTo(10));
  }

  @Test
  void after_a_phase_2_that_found_nothing_the_session_skips_it_while_its_claims_get_as_much() {
    tenAggregates("share_skips");
    try (Handle worker = jdbi.open()) {
      assertThat(share(worker, "share_skips")).isNull();
      // Each claim (committed: the messages are processed) gets the ten heads and nothing more.
      assertThat(claim(worker, "share_skips", 100)).hasSize(10);
      assertThat(share(worker, "share_skips")).isEqualTo("7/10");
      for (int left = 6; left >= 0; left--) {
        assertThat(claim(worker, "share_skips", 100)).hasSize(10);
        assertThat(share(worker, "share_skips")).isEqualTo(left + "/10");
      }
      // The next claim runs phase 2 again, which again finds nothing.
      assertThat(claim(worker, "share_skips", 100)).hasSize(10);
      assertThat(share(worker, "share_skips")).isEqualTo("7/10");
      // Another session has its own count.
      try (Handle other = jdbi.open()) {
        assertThat(share(other, "share_skips")).isNull();
      }
    }
  }

  /**
   * A claim that does not fill its limit makes the session's next claim probe only candidates; one
   * that fills it, walk and probe until the limit, as a single worker's claims do.
   */
  @Test
  void the_session_probes_candidates_after_a_claim_that_did_not_fill_its_limit() {
    tenAggregates("share_walk");
    try (Handle worker = jdbi.open()) {
      // Ten heads fill half of 20: no phase 2, but the whole window was read.
      assertThat(claim(worker, "share_walk", 20)).hasSize(10);
      assertThat(share(worker, "share_walk")).isEqualTo("0/0");
      assertThat(claim(worker, "share_walk", 20)).hasSize(10);
      assertThat(share(worker, "share_walk")).isEqualTo("0/0");
      assertThat(claim(worker, "share_walk", 10)).hasSize(10);
      assertThat(share(worker, "share_walk")).isEmpty();
    }
  }

  /**
   * A claim whose phase 1 finds less than half of what it found when phase 2 last found nothing
   * runs phase 2: the window changed (here: one hot aggregate's queue), and a head behind it is
   * handed out at once.
   */
  @Test
  void a_claim_that_finds_less_than_half_as_much_runs_phase_2_again() {
    PostgresInbox inbox = manager.createInbox("share_changed");
    manager.enableOrdering("share_changed", "aggregate_id", "seq");
    List<NewMessage> front = new ArrayList<>();
    for (int round = 1; round <= 2; round++) {
      for (int a = 0; a < 20; a++) {
        front.add(NewMessage.of("x" + a + "-" + round, "t", "x" + a, null));
      }
    }
    front.forEach(inbox::send); // one by one: arrival order as listed
    inbox.sendAll(
        IntStream.rangeClosed(1, 400)
            .mapToObj(i -> NewMessage.of(String.format("hot-%04d", i), "t", "hot", null))
            .toList());
    try (Handle worker = jdbi.open()) {
      // The window (2 * 100 + 100) holds the x messages and the hot queue's front: 21 heads,
      // phase 2 finds nothing else.
      assertThat(claim(worker, "share_changed", 100)).hasSize(21);
      assertThat(share(worker, "share_changed")).isEqualTo("7/21");
      assertThat(claim(worker, "share_changed", 100)).hasSize(21); // x*-2, hot-0002
      assertThat(share(worker, "share_changed")).isEqualTo("6/21");
      inbox.send(NewMessage.of("late-1", "t", "late", null)); // behind the window: 398 hot messages
      assertThat(claim(worker, "share_changed", 100)).containsExactly("hot-0003", "late-1");
    }
  }

  /** A claim that finds nothing in its window never skips phase 2, nor does a garbled count. */
  @Test
  void a_claim_that_finds_nothing_in_its_window_runs_phase_2_whatever_the_count_says() {
    PostgresInbox inbox =
        manager.createInbox("share_empty", InboxOptions.builder().maxRetries(1).build());
    manager.enableOrdering("share_empty", "aggregate_id", "seq");
    inbox.sendAll(
        IntStream.rangeClosed(1, 300)
            .mapToObj(i -> NewMessage.of(String.format("dead-%04d", i), "t", "dead", null))
            .toList());
    inbox.send(NewMessage.of("b-1", "t", "b", null));
    inbox.send(NewMessage.of("c-1", "t", "c", null));
    assertThat(inbox.markFailed("dead-0001", "boom")).isEqualTo(MarkFailedResult.DEAD);
    try (Handle worker = jdbi.open()) {
      // The window is the dead head's followers, all blocked: only phase 2 finds b-1 and c-1.
      worker.execute("SET pginbox_claim_share.share_empty = '7/0'");
      worker.begin();
      assertThat(claim(worker, "share_empty", 10)).containsExactly("b-1", "c-1");
      worker.rollback();
      worker.execute("SET pginbox_claim_share.share_empty = 'garbage'");
      assertThat(claim(worker, "share_empty", 10)).containsExactly("b-1", "c-1");
    }
  }
}
