package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The ordered claim hands out only aggregate heads, whatever its window holds (claim_&lt;name&gt;
 * in definitions/create_inbox.sql; also count_waiting's count). These tests try to make it hand out
 * a message that is not its aggregate's head: sequences out of arrival order, dead and backing-off
 * heads, a later priority before an earlier sequence, two claims side by side with random limits,
 * commits and rollbacks; after every claim each message handed out is checked against the
 * definition of a head in the state committed before it.
 */
class OrderedClaimWindowTest extends InboxTestSupport {

  private static final int MESSAGES = 1_200;

  /**
   * Waiting messages that are their aggregate's head by the definition: no earlier unprocessed
   * message (by received_at, then seq) of the aggregate, dead or backing off included.
   */
  private static Set<String> headsNow(String inbox) {
    return new HashSet<>(
        strings(
            ("SELECT m.event_id FROM inbox.%1$s m WHERE m.processed_at IS NULL"
                    + " AND (m.aggregate_id IS NULL OR NOT EXISTS (SELECT 1 FROM inbox.%1$s e"
                    + " WHERE e.aggregate_id = m.aggregate_id AND e.processed_at IS NULL"
                    + " AND (e.received_at, e.seq) < (m.received_at, m.seq)))")
                .formatted(inbox)));
  }

  private static Map<String, String> aggregates(String inbox) {
    Map<String, String> result = new HashMap<>();
    jdbi.useHandle(
        h ->
            h.select("SELECT event_id, aggregate_id FROM inbox." + inbox)
                .map((rs, ctx) -> Map.entry(rs.getString(1), String.valueOf(rs.getString(2))))
                .forEach(e -> result.put(e.getKey(), e.getValue())));
    return result;
  }

  private static List<String> claim(Handle h, String inbox, int limit) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(?)", limit)
        .mapTo(String.class)
        .list();
  }

  /**
   * Workers sharing every head all claim from the front of the claim order, so the heads there are
   * held by the others' open claims. A claim whose window holds nothing but those walks on into the
   * window after it and takes the first free heads, in claim order; it used to come back empty (a
   * window of 2 * 100 + 100 messages, all held by three other claims).
   */
  @Test
  void a_claim_walks_past_the_heads_other_claims_hold() {
    String inbox = "window_held";
    manager.createInbox(inbox, InboxOptions.defaults());
    manager.enableOrdering(inbox, "aggregate_id", "received_at");
    // 1,000 aggregates, three messages each, round-robin: m1..m1000 are the heads, in claim order.
    jdbi.useHandle(
        h ->
            h.execute(
                ("INSERT INTO inbox.%s (event_id, event_type, source, aggregate_id, payload)"
                        + " SELECT 'm' || g, 't', 't', 'a' || mod(g, 1000), '{}'"
                        + " FROM generate_series(1, 3000) g")
                    .formatted(inbox)));
    try (Handle first = jdbi.open();
        Handle second = jdbi.open();
        Handle third = jdbi.open();
        Handle fourth = jdbi.open()) {
      List<Handle> claimers = List.of(first, second, third, fourth);
      claimers.forEach(Handle::begin);
      for (int i = 0; i < 4; i++) {
        assertThat(claim(claimers.get(i), inbox, 100))
            .as("claim %d", i + 1)
            .isEqualTo(range(100 * i + 1, 100 * (i + 1)));
      }
      claimers.forEach(Handle::rollback);
      // One window more, not more: two claims of 300 hold m1..m600, the two windows of 300 a
      // claim of 100 walks. Behind a window of blocked followers (a hot aggregate) walking on only
      // costs; that is phase 2's case.
      claimers.forEach(Handle::begin);
      assertThat(claim(first, inbox, 300)).isEqualTo(range(1, 300));
      assertThat(claim(second, inbox, 300)).isEqualTo(range(301, 600));
      assertThat(claim(third, inbox, 100)).isEmpty();
      // A claim of 150 walks two windows of 400: m601..m800 are free.
      assertThat(claim(fourth, inbox, 150)).isEqualTo(range(601, 750));
      claimers.forEach(Handle::rollback);
    }
  }

  private static List<String> range(int from, int to) {
    List<String> ids = new ArrayList<>();
    for (int g = from; g <= to; g++) {
      ids.add("m" + g);
    }
    return ids;
  }

  /**
   * With 40 aggregates a window is mostly followers; with 600 and a first claim of up to 200, the
   * second claim's window is often all heads the first holds, and it walks on into the next one.
   */
  @ParameterizedTest(name = "seed {0}, {1} aggregates, claims of up to {2}")
  @CsvSource({"1, 40, 60", "2, 40, 60", "3, 40, 60", "4, 600, 200", "5, 600, 200"})
  void two_claims_side_by_side_hand_out_only_heads_and_never_one_aggregate_twice(
      long seed, int aggregates, int maxLimit) {
    Random random = new Random(seed);
    String inbox = "window_" + seed;
    manager.createInbox(inbox, InboxOptions.builder().maxRetries(2).build());
    manager.enableOrdering(inbox, "aggregate_id", "received_at");
    manager.enablePriority(inbox, "event_type", Map.of("urgent", 1, "normal", 5));
    // received_at out of arrival order (a sequence the producer chose), ties included; a few
    // messages without aggregate; some urgent (claimed first, whatever their sequence); some dead
    // heads and heads backing off, whose followers must wait.
    jdbi.useHandle(
        h -> {
          var batch =
              h.prepareBatch(
                  ("INSERT INTO inbox.%s (event_id, event_type, source, aggregate_id, payload,"
                          + " received_at, retry_count, next_attempt_at)"
                          + " VALUES (?, ?, 't', ?, '{}', timestamptz '2026-01-01' + ? * interval"
                          + " '1 second', ?, CASE WHEN ? THEN now() + interval '1 hour'"
                          + " ELSE '-infinity' END)")
                      .formatted(inbox));
          for (int g = 1; g <= MESSAGES; g++) {
            int fate = random.nextInt(100);
            batch
                .bind(0, "m" + g)
                .bind(1, random.nextInt(10) == 0 ? "urgent" : "normal")
                .bind(2, random.nextInt(30) == 0 ? null : "a" + random.nextInt(aggregates))
                .bind(3, random.nextInt(500))
                .bind(4, fate == 0 ? 2 : fate == 1 ? 1 : 0)
                .bind(5, fate == 1)
                .add();
          }
          batch.execute();
        });
    Map<String, String> aggregateOf = aggregates(inbox);

    int rounds = 0;
    // Two sessions for the whole drain, as two workers have: a claim remembers in its session
    // when phase 2 found nothing (pginbox_claim_skips.<inbox>) and may skip it later.
    try (Handle first = jdbi.open();
        Handle second = jdbi.open()) {
      while (true) {
        Set<String> heads = headsNow(inbox);
        // The batching rule's count agrees with the definition, bounded or not.
        long claimable =
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE event_id = ANY (?) AND retry_count < 2 AND next_attempt_at <= now()",
                (Object) heads.toArray(new String[0]));
        int bound = 1 + random.nextInt(60);
        assertThat(count("SELECT inbox.count_waiting(?, NULL)", inbox)).isEqualTo(claimable);
        assertThat(count("SELECT inbox.count_waiting(?, ?)", inbox, bound))
            .isEqualTo(Math.min(bound, claimable));
        first.begin();
        second.begin();
        List<String> a = claim(first, inbox, 1 + random.nextInt(maxLimit));
        List<String> b = claim(second, inbox, 1 + random.nextInt(60));
        if (a.isEmpty() && b.isEmpty()) {
          first.rollback();
          second.rollback();
          break;
        }
        assertThat(heads).containsAll(a).containsAll(b);
        Set<String> both = new HashSet<>(a);
        both.retainAll(b);
        assertThat(both).isEmpty();
        Set<String> held = new HashSet<>();
        for (String id : a) {
          String aggregate = aggregateOf.get(id);
          assertThat(aggregate.equals("null") || held.add(aggregate)).as(id).isTrue();
        }
        for (String id : b) {
          String aggregate = aggregateOf.get(id);
          assertThat(aggregate.equals("null") || held.add(aggregate)).as(id).isTrue();
        }
        // Random outcomes: a rolled-back claim hands its heads out again.
        if (random.nextInt(5) == 0) {
          first.rollback();
        } else {
          first.commit();
        }
        second.commit();
        rounds++;
        assertThat(rounds).isLessThan(10_000);
      }
    }
    // Drained but for the dead heads, the heads backing off and the messages behind them.
    Set<String> left =
        new HashSet<>(
            strings(
                "SELECT event_id FROM inbox."
                    + inbox
                    + " WHERE processed_at IS NULL AND retry_count < 2 AND next_attempt_at <= now()"));
    for (String id : left) {
      assertThat(headsNow(inbox)).doesNotContain(id);
    }
    List<String> blockedAggregates = new ArrayList<>();
    left.forEach(id -> blockedAggregates.add(aggregateOf.get(id)));
    assertThat(blockedAggregates).doesNotContain("null");
  }
}
