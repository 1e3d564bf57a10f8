package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * With fewer aggregates than a claim could take, an ordered claim takes only its share of the heads
 * when several live workers claim without partitions (inbox.live_claimers), so that the other
 * workers find heads too instead of waiting for its commit.
 */
class OrderedClaimShareTest extends InboxTestSupport {

  private static final int AGGREGATES = 200;

  private static List<String> claim(Handle h, String inbox, int limit) {
    return h.select("SELECT aggregate_id FROM inbox.claim_" + inbox + "(?)", limit)
        .mapTo(String.class)
        .list();
  }

  private static int claimAndRollBack(String inbox, int limit) {
    try (Handle h = jdbi.open()) {
      h.begin();
      int n = claim(h, inbox, limit).size();
      h.rollback();
      return n;
    }
  }

  private static void announce(String inbox, String worker, String details) {
    sql("SELECT inbox.worker_announce(?, ?, ?::jsonb)", inbox, worker, details);
  }

  @Test
  void live_workers_without_partitions_share_scarce_heads() {
    String inbox = "share_heads";
    manager.createInbox(inbox);
    manager.enableOrdering(inbox);
    // Five messages per aggregate, interleaved: the window of a claim of 200 holds 200
    // aggregates and their followers.
    sql(
        "INSERT INTO inbox."
            + inbox
            + " (event_id, event_type, source, aggregate_id, payload)"
            + " SELECT 'm' || g, 't', 's', 'a' || (g % "
            + AGGREGATES
            + "), '{}' FROM generate_series(1, "
            + 5 * AGGREGATES
            + ") g");

    assertThat(claimAndRollBack(inbox, AGGREGATES)).isEqualTo(AGGREGATES);

    String all = "{\"assignment\": \"all\", \"concurrency\": 1, \"interval_seconds\": 10}";
    announce(inbox, "w1", all);
    assertThat(claimAndRollBack(inbox, AGGREGATES)).as("one live worker").isEqualTo(AGGREGATES);
    announce(inbox, "w2", all);
    try (Handle first = jdbi.open();
        Handle second = jdbi.open()) {
      first.begin();
      second.begin();
      List<String> a = claim(first, inbox, AGGREGATES);
      List<String> b = claim(second, inbox, AGGREGATES);
      assertThat(a).hasSize(AGGREGATES / 2);
      assertThat(b).hasSize(AGGREGATES / 2);
      Set<String> aggregates = new HashSet<>(a);
      aggregates.addAll(b);
      assertThat(aggregates).hasSize(AGGREGATES);
      first.rollback();
      second.rollback();
    }
    // Heads are plentiful for a small claim: no cap below the limit asked for.
    assertThat(claimAndRollBack(inbox, 20)).isEqualTo(20);
    // Processors count, not workers; partitioned, stopped and silent workers do not.
    announce(inbox, "w3", "{\"assignment\": \"all\", \"concurrency\": 2}");
    announce(inbox, "p1", "{\"assignment\": \"static\", \"partition\": 0, \"partitions\": 2}");
    assertThat(claimAndRollBack(inbox, AGGREGATES)).isEqualTo(AGGREGATES / 4);
    sql("SELECT inbox.worker_stopped(?, 'w3')", inbox);
    sql(
        "UPDATE inbox.inbox_worker_registry SET heartbeat_at = now() - interval '2 minutes'"
            + " WHERE inbox_name = ? AND worker_id = 'w2'",
        inbox);
    assertThat(claimAndRollBack(inbox, AGGREGATES)).isEqualTo(AGGREGATES);
    // A claim restricted to buckets (a partitioned worker) takes what it finds.
    announce(inbox, "w2", all);
    assertThat(
            count(
                "SELECT count(*) FROM inbox.claim_"
                    + inbox
                    + "(?, (SELECT array_agg(b) FROM generate_series(0, 1023) b))",
                AGGREGATES))
        .isEqualTo(AGGREGATES);
  }
}
