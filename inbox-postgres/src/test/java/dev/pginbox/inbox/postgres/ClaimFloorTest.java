package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Claims start each priority level at the session's claim floor instead of the front of the claim
 * index, so the index entries of claimed messages that vacuum cannot remove (a held xmin horizon)
 * are not read again. A floor must never pass a message that can still wait below it: one whose
 * insert commits late, one a rolled-back claim gives back, a retry, a replayed dead letter, a more
 * urgent message, a priority outside the map.
 */
class ClaimFloorTest extends InboxTestSupport {

  private static void send(PostgresInbox inbox, String prefix, int n) {
    inbox.sendAll(
        IntStream.range(0, n)
            .mapToObj(i -> NewMessage.of(prefix + i, "t", prefix + "-a" + i, null))
            .toList());
  }

  private static long claimIndexEntriesReadByOneClaim(Claimer claimer, String inbox, int limit)
      throws Exception {
    return claimIndexEntriesRead(
        claimer, inbox, "SELECT count(*) FROM inbox.claim_" + inbox + "(" + limit + ")");
  }

  private static long claimIndexEntriesRead(Claimer claimer, String inbox, String statement)
      throws Exception {
    return claimer.indexEntriesRead(inbox + "_claim_idx", statement);
  }

  @Test
  void while_the_horizon_is_held_a_claim_reads_no_entry_of_messages_claimed_before_it()
      throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_held");
    send(inbox, "m", 12_000);
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, "floor_held")) {
      // No sweep (a walk from the front, by design) during the claim measured below.
      claimer.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      for (int i = 0; i < 100; i++) {
        claimer.claim(100);
      }
      // 10,000 claimed, their entries kept by the held horizon. A claim from the front of the
      // index read all of them (and 10,100 entries); from its floor, about what it claims.
      long read = claimIndexEntriesReadByOneClaim(claimer, "floor_held", 100);
      assertThat(read).isBetween(100L, 1_000L);
      holder.rollback();
    }
    assertThat(count("SELECT count(*) FROM inbox.floor_held WHERE processed_at IS NULL"))
        .isEqualTo(1_900);
  }

  @Test
  void a_session_that_claims_its_buckets_and_the_whole_inbox_in_turn_keeps_both_floors()
      throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_masks");
    send(inbox, "m", 12_000);
    String mine =
        "SELECT count(*) FROM inbox.claim_floor_masks(100, inbox.inbox_partition_buckets(0, 2))";
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, "floor_masks")) {
      claimer.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      // As a worker spread over the buckets claims: its own, now and then the whole inbox.
      for (int i = 0; i < 50; i++) {
        Thread.sleep(25);
        claimer.execute(mine);
        claimer.claim(100);
      }
      // Each switch between the two started the floors afresh: from the front, 5,000 or more.
      Thread.sleep(25);
      assertThat(claimer.indexEntriesRead("floor_masks_claim_idx", mine)).isLessThan(2_000L);
      assertThat(claimIndexEntriesReadByOneClaim(claimer, "floor_masks", 100)).isLessThan(2_000L);
      holder.rollback();
    }
  }

  @Test
  void while_the_horizon_is_held_health_reads_from_floors_of_its_own() throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_health");
    send(inbox, "m", 10_500);
    sql(
        "DO $$ BEGIN IF to_regrole('floor_health_reader') IS NULL THEN"
            + " CREATE ROLE floor_health_reader; END IF; END $$");
    sql("SELECT inbox.grant_inbox('floor_health', 'floor_health_reader', 'reader')");
    String health = "SELECT inbox.inbox_health('floor_health')";
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, "floor_health");
        Claimer operator = new Claimer(database, "floor_health")) {
      claimer.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      operator.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      for (int i = 0; i < 100; i++) {
        claimer.claim(100);
      }
      // The operator's first call reads from the front and leaves its floors to move at the next.
      operator.execute(health);
      Thread.sleep(50);
      operator.execute(health);
      // The pending count, the oldest pending and the oldest claimable message, the messages in
      // process: from the front of the claim index each read the 10,000 claimed entries.
      assertThat(claimIndexEntriesRead(operator, "floor_health", health)).isBetween(500L, 3_000L);
      assertThat(scalar(operator, health + " ->> 'pending_count'")).isEqualTo("500");
      // The workers' pending gauges count the same way.
      String gauges = "SELECT depth FROM inbox.pending_gauges('floor_health')";
      assertThat(claimIndexEntriesRead(operator, "floor_health", gauges)).isBetween(500L, 3_000L);
      assertThat(scalar(operator, gauges)).isEqualTo("500");
      // Health in the claimer's session keeps the claimer's floors where they were.
      claimer.execute(health);
      assertThat(claimIndexEntriesReadByOneClaim(claimer, "floor_health", 100))
          .isBetween(100L, 1_000L);
      // A role granted before readers could read the seq sequence reads every level from its
      // start, with the same answer.
      sql("REVOKE SELECT ON SEQUENCE inbox.floor_health_seq_seq FROM floor_health_reader");
      operator.execute("SET ROLE floor_health_reader");
      assertThat(scalar(operator, health + " ->> 'pending_count'")).isEqualTo("400");
      operator.execute("RESET ROLE");
      holder.rollback();
    }
  }

  private static String scalar(Claimer session, String sql) throws SQLException {
    return session.scalar(sql);
  }

  @Test
  void an_ordered_claim_walks_the_claim_order_from_its_floor_too() throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_ordered");
    manager.enableOrdering("floor_ordered", "aggregate_id", "received_at");
    send(inbox, "m", 12_000);
    try (Connection holder = holdHorizon("report");
        Claimer claimer = new Claimer(database, "floor_ordered")) {
      claimer.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      for (int i = 0; i < 100; i++) {
        assertThat(claimer.claim(100)).hasSize(100);
      }
      // Every message is its aggregate's head: the window of a claim from the front of the claim
      // index read the 10,000 claimed entries first.
      long read = claimIndexEntriesReadByOneClaim(claimer, "floor_ordered", 100);
      assertThat(read).isBetween(100L, 1_000L);
      // The count of waiting heads (the workers' batching rule) walks from the floors too.
      long counted =
          claimIndexEntriesRead(
              claimer, "floor_ordered", "SELECT inbox.count_waiting('floor_ordered', 100)");
      assertThat(counted).isBetween(100L, 1_000L);
      holder.rollback();
    }
    assertThat(count("SELECT count(*) FROM inbox.floor_ordered WHERE processed_at IS NULL"))
        .isEqualTo(1_900);
  }

  @Test
  void a_replayed_dead_letter_of_an_ordered_inbox_is_claimed_below_the_floors() throws Exception {
    PostgresInbox inbox =
        manager.createInbox("floor_replay_ordered", InboxOptions.builder().maxRetries(1).build());
    manager.enableOrdering("floor_replay_ordered", "aggregate_id", "received_at");
    send(inbox, "m", 3);
    try (Claimer claimer = new Claimer(database, "floor_replay_ordered")) {
      claimer.execute("BEGIN");
      assertThat(claimer.claim(1)).containsExactly("m0");
      claimer.execute(
          "SELECT inbox.mark_failed('floor_replay_ordered', 'm0', 'boom', interval '0')");
      claimer.execute("COMMIT");
      assertThat(count("SELECT count(*) FROM inbox.floor_replay_ordered_dlq")).isEqualTo(1);
      send(inbox, "o", 20);
      assertThat(claimer.claim(30)).hasSize(22);
      assertThat(claimer.claim(10)).isEmpty();
      // Its seq stays (it orders its aggregate); the replay resets the floors instead.
      sql("SELECT inbox.replay_inbox_messages('floor_replay_ordered', ARRAY['m0'])");
      assertThat(claimer.claim(10)).containsExactly("m0");
      // And by group.
      claimer.execute("BEGIN");
      send(inbox, "p", 1);
      assertThat(claimer.claim(1)).containsExactly("p0");
      claimer.execute(
          "SELECT inbox.mark_failed('floor_replay_ordered', 'p0', 'boom', interval '0')");
      claimer.execute("COMMIT");
      send(inbox, "q", 20);
      assertThat(claimer.claim(30)).hasSize(20);
      sql("SELECT inbox.replay_dlq_group('floor_replay_ordered', 't', NULL)");
      assertThat(claimer.claim(10)).containsExactly("p0");
    }
  }

  @Test
  void an_insert_that_commits_after_later_ones_is_claimed_at_once() throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_late");
    try (Connection late = database.connect();
        Claimer claimer = new Claimer(database, "floor_late")) {
      late.setAutoCommit(false);
      late.createStatement()
          .execute("INSERT INTO inbox.floor_late (event_id, event_type) VALUES ('late', 't')");
      send(inbox, "after", 30);
      // The floors move past every message after "late", many times over.
      for (int i = 0; i < 6; i++) {
        assertThat(claimer.claim(10)).doesNotContain("late");
      }
      late.commit();
      assertThat(claimer.claimsUntil("late", 3)).isEqualTo(1);
    }
  }

  @Test
  void messages_of_a_claim_that_rolls_back_are_claimed_again_at_once() throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_rollback");
    send(inbox, "m", 40);
    try (Claimer first = new Claimer(database, "floor_rollback");
        Claimer other = new Claimer(database, "floor_rollback")) {
      first.execute("BEGIN");
      List<String> held = first.claim(5);
      assertThat(held).hasSize(5);
      for (int i = 0; i < 3; i++) {
        assertThat(other.claim(10)).doesNotContainAnyElementsOf(held);
      }
      first.execute("ROLLBACK");
      assertThat(other.claim(10)).containsAll(held);
    }
  }

  @Test
  void a_retry_comes_back_when_due_and_a_replayed_dead_letter_at_once() throws Exception {
    PostgresInbox inbox =
        manager.createInbox("floor_retry", InboxOptions.builder().maxRetries(2).build());
    send(inbox, "m", 3);
    try (Claimer claimer = new Claimer(database, "floor_retry")) {
      claimer.execute("BEGIN");
      assertThat(claimer.claim(1)).containsExactly("m0");
      // Backing off for 5 s: long enough that the claims below come before it is due, however
      // slow the machine.
      claimer.execute(
          "SELECT inbox.mark_failed('floor_retry', 'm0', 'boom', interval '5 seconds')");
      claimer.execute("COMMIT");
      send(inbox, "n", 20);
      assertThat(claimer.claim(30)).doesNotContain("m0").hasSize(22);
      double wait =
          jdbi.withHandle(
              h ->
                  h.select(
                          "SELECT extract(epoch FROM next_attempt_at - clock_timestamp())::float8"
                              + " FROM inbox.floor_retry WHERE event_id = 'm0'")
                      .mapTo(Double.class)
                      .one());
      Thread.sleep(Math.max(0, (long) (wait * 1000) + 50));
      claimer.execute("BEGIN");
      assertThat(claimer.claim(10)).containsExactly("m0");
      // Its second failure makes it a dead letter, far below the floors once more have come.
      claimer.execute("SELECT inbox.mark_failed('floor_retry', 'm0', 'boom again', interval '0')");
      claimer.execute("COMMIT");
      assertThat(count("SELECT count(*) FROM inbox.floor_retry_dlq")).isEqualTo(1);
      send(inbox, "o", 20);
      assertThat(claimer.claim(30)).hasSize(20);
      assertThat(claimer.claim(10)).isEmpty();
      // Replayed, it is claimed by the next claim.
      sql("SELECT inbox.replay_inbox_messages('floor_retry', ARRAY['m0'])");
      assertThat(claimer.claim(10)).containsExactly("m0");
    }
  }

  @Test
  void a_more_urgent_message_arriving_later_is_claimed_first() throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_urgent");
    manager.enablePriority(
        "floor_urgent", "event_type", java.util.Map.of("urgent", 1, "normal", 5));
    inbox.sendAll(
        IntStream.range(0, 40)
            .mapToObj(i -> NewMessage.of("n" + i, "normal", "a" + i, null))
            .toList());
    try (Claimer claimer = new Claimer(database, "floor_urgent")) {
      for (int i = 0; i < 3; i++) {
        claimer.claim(5);
      }
      inbox.send(NewMessage.of("u", "urgent", "x", null));
      assertThat(claimer.claim(5)).startsWith("u");
    }
  }

  @Test
  void a_priority_outside_the_map_set_by_the_owner_is_claimed_by_the_next_sweep() throws Exception {
    PostgresInbox inbox = manager.createInbox("floor_sweep");
    send(inbox, "m", 30);
    try (Claimer claimer = new Claimer(database, "floor_sweep")) {
      claimer.execute("SET inbox.claim_floor_sweep_seconds = 1");
      for (int i = 0; i < 3; i++) {
        claimer.claim(5);
      }
      // Below every floor and at a level the claims do not know: only a sweep finds it.
      sql(
          "INSERT INTO inbox.floor_sweep (event_id, event_type, priority, seq) "
              + "OVERRIDING SYSTEM VALUE VALUES ('owner', 't', 7, 1)");
      Thread.sleep(1_100);
      assertThat(claimer.claimsUntil("owner", 3)).isPositive();
    }
  }
}
