package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.TrackingSpec;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A tracked table with an arrival column (an identity or serial column) is claimed from the
 * session's claim floor on that column, as a managed inbox is on seq: the entries of messages
 * claimed while the xmin horizon is held are not read again, and no floor passes a message that can
 * still wait below it (a late commit, also into a partition; a rolled-back claim; a retry; a
 * replayed dead letter).
 */
class TrackedClaimFloorTest extends InboxTestSupport {

  @BeforeAll
  static void schema() {
    sql("CREATE SCHEMA arrive");
  }

  /** A table the application owns, its claim index and the inbox over it. */
  private static void track(String name, boolean arrival) {
    sql(
        "CREATE TABLE arrive."
            + name
            + " (event_id text PRIMARY KEY, event_type text NOT NULL,"
            + " arrival bigint GENERATED ALWAYS AS IDENTITY, received_at timestamptz NOT NULL"
            + " DEFAULT now(), processed_at timestamptz)");
    sql(
        "CREATE INDEX "
            + name
            + "_waiting ON arrive."
            + name
            + (arrival ? " (arrival)" : " (received_at, event_id)")
            + " WHERE processed_at IS NULL");
    manager.enableTracking(
        TrackingSpec.builder(name, "arrive." + name)
            .maxRetries(2)
            .arrivalColumn(arrival ? "arrival" : null)
            .build());
  }

  private static void send(String table, String prefix, int n) {
    sql(
        "INSERT INTO arrive."
            + table
            + " (event_id, event_type) SELECT ? || i, 't' FROM generate_series(0, ? - 1) i",
        prefix,
        n);
  }

  @Test
  void while_the_horizon_is_held_a_claim_reads_no_entry_of_messages_claimed_before_it()
      throws Exception {
    track("held_floor", true);
    track("held_front", false);
    send("held_floor", "m", 12_000);
    send("held_front", "m", 12_000);
    try (Connection holder = holdHorizon("report");
        Claimer floor = new Claimer(database, "held_floor");
        Claimer front = new Claimer(database, "held_front")) {
      floor.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      for (int i = 0; i < 100; i++) {
        assertThat(floor.claim(100)).hasSize(100);
        front.claim(100);
      }
      // 10,000 claimed, their entries kept by the held horizon: without an arrival column a claim
      // walks them all from the front of the application's index; with one, from its floor.
      assertThat(front.indexEntriesRead("arrive.held_front_waiting", claim("held_front")))
          .isGreaterThan(10_000L);
      assertThat(floor.indexEntriesRead("arrive.held_floor_waiting", claim("held_floor")))
          .isBetween(100L, 1_000L);
      // The count of waiting messages (the workers' batching rule) from the floor too.
      assertThat(
              floor.indexEntriesRead(
                  "arrive.held_floor_waiting", "SELECT inbox.count_waiting('held_floor', 100)"))
          .isBetween(100L, 1_000L);
      assertThat(floor.scalar("SELECT inbox.count_waiting('held_floor', 5000)")).isEqualTo("1900");
      // Health (the pending count, the oldest pending message) and the workers' pending gauges
      // read from floors of their own: a session's first call reads from the front, and its
      // floors move from there at the next.
      floor.execute("SET inbox.claim_floor_sweep_seconds = 3600");
      for (int i = 0; i < 2; i++) {
        floor.execute(health("held_floor"));
        Thread.sleep(50);
      }
      // (How many of the 10,000 entries health reads in received_at order depends on the plans
      // the server picks for its counts; the claim above reads them all.)
      assertThat(floor.indexEntriesRead("arrive.held_floor_waiting", health("held_floor")))
          .isLessThan(6_000L);
      assertThat(floor.scalar(health("held_floor") + " ->> 'pending_count'")).isEqualTo("1900");
      String gauges = "SELECT depth FROM inbox.pending_gauges('held_floor')";
      assertThat(floor.indexEntriesRead("arrive.held_floor_waiting", gauges)).isLessThan(6_000L);
      assertThat(floor.scalar(gauges)).isEqualTo("1900");
      holder.rollback();
    }
    assertThat(count("SELECT count(*) FROM arrive.held_floor WHERE processed_at IS NULL"))
        .isEqualTo(1_900);
  }

  private static String health(String inbox) {
    return "SELECT inbox.inbox_health('" + inbox + "')";
  }

  private static String claim(String inbox) {
    return "SELECT count(*) FROM inbox.claim_" + inbox + "(100)";
  }

  @Test
  void the_claim_order_is_the_arrival_column() throws Exception {
    track("by_arrival", true);
    // received_at says the opposite of the arrival order.
    sql(
        "INSERT INTO arrive.by_arrival (event_id, event_type, received_at) VALUES"
            + " ('first', 't', now()), ('second', 't', now() - interval '1 hour')");
    try (Claimer claimer = new Claimer(database, "by_arrival")) {
      assertThat(claimer.claim(10)).containsExactly("first", "second");
      assertThat(
              claimer.scalar(
                  "SELECT inbox.inbox_status('by_arrival') -> 'features' -> 'claim_floors' ->> 'enabled'"))
          .isEqualTo("true");
      // A claimed row's seq is its arrival.
      sql("INSERT INTO arrive.by_arrival (event_id, event_type) VALUES ('third', 't')");
      assertThat(claimer.scalar("SELECT seq FROM inbox.claim_by_arrival(1)")).isEqualTo("3");
    }
  }

  @Test
  void an_insert_that_commits_after_later_ones_is_claimed_at_once() throws Exception {
    track("late", true);
    try (Connection late = database.connect();
        Claimer claimer = new Claimer(database, "late")) {
      late.setAutoCommit(false);
      late.createStatement()
          .execute("INSERT INTO arrive.late (event_id, event_type) VALUES ('late', 't')");
      send("late", "after", 30);
      // The floor moves past every message after "late", many times over.
      for (int i = 0; i < 6; i++) {
        assertThat(claimer.claim(10)).doesNotContain("late");
      }
      late.commit();
      assertThat(claimer.claimsUntil("late", 3)).isEqualTo(1);
    }
  }

  @Test
  void an_insert_into_a_partition_that_commits_late_is_claimed_at_once() throws Exception {
    sql(
        "CREATE TABLE arrive.parted (event_id text NOT NULL, event_type text NOT NULL,"
            + " arrival bigserial, processed_at timestamptz) PARTITION BY LIST (event_type)");
    sql("CREATE TABLE arrive.parted_a PARTITION OF arrive.parted FOR VALUES IN ('a')");
    sql("CREATE TABLE arrive.parted_b PARTITION OF arrive.parted FOR VALUES IN ('b')");
    sql(
        "SELECT inbox.enable_inbox_tracking('parted', 'arrive.parted',"
            + " p_arrival_column => 'arrival')");
    try (Connection late = database.connect();
        Claimer claimer = new Claimer(database, "parted")) {
      late.setAutoCommit(false);
      // Straight into a partition: the lock is on the partition, not on the table.
      late.createStatement()
          .execute("INSERT INTO arrive.parted_a (event_id, event_type) VALUES ('late', 'a')");
      sql(
          "INSERT INTO arrive.parted (event_id, event_type)"
              + " SELECT 'after' || i, 'b' FROM generate_series(1, 30) i");
      for (int i = 0; i < 6; i++) {
        assertThat(claimer.claim(10)).doesNotContain("late");
      }
      late.commit();
      assertThat(claimer.claimsUntil("late", 3)).isEqualTo(1);
    }
  }

  @Test
  void messages_of_a_claim_that_rolls_back_are_claimed_again_at_once() throws Exception {
    track("rollback", true);
    send("rollback", "m", 40);
    try (Claimer first = new Claimer(database, "rollback");
        Claimer other = new Claimer(database, "rollback")) {
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
    track("retry", true);
    send("retry", "m", 3);
    try (Claimer claimer = new Claimer(database, "retry");
        Claimer replayer = new Claimer(database, "retry")) {
      claimer.execute("BEGIN");
      assertThat(claimer.claim(1)).containsExactly("m0");
      claimer.execute("SELECT inbox.mark_failed('retry', 'm0', 'boom', interval '2 seconds')");
      claimer.execute("COMMIT");
      send("retry", "n", 20);
      assertThat(claimer.claim(30)).doesNotContain("m0").hasSize(22);
      Thread.sleep(2_100);
      claimer.execute("BEGIN");
      assertThat(claimer.claim(10)).containsExactly("m0");
      // Its second failure makes it a dead letter, far below the floor once more have come.
      claimer.execute("SELECT inbox.mark_failed('retry', 'm0', 'boom again', interval '0')");
      claimer.execute("COMMIT");
      assertThat(count("SELECT count(*) FROM inbox.retry_dlq")).isEqualTo(1);
      send("retry", "o", 20);
      assertThat(claimer.claim(30)).hasSize(20);
      assertThat(claimer.claim(10)).isEmpty();
      // A replay not yet committed: the floor stays below the dead letter meanwhile.
      replayer.execute("BEGIN");
      replayer.execute("SELECT inbox.replay_inbox_messages('retry', ARRAY['m0'])");
      for (int i = 0; i < 3; i++) {
        assertThat(claimer.claim(10)).isEmpty();
      }
      replayer.execute("COMMIT");
      assertThat(claimer.claim(10)).containsExactly("m0");
    }
  }

  @Test
  void a_granted_consumer_reads_the_arrival_sequence_and_a_drop_gives_its_privileges_back()
      throws Exception {
    LoginRoles roles = new LoginRoles(database);
    Login app = roles.create("arrival_app");
    sql(
        "CREATE TABLE arrive.granted (event_id text PRIMARY KEY, event_type text NOT NULL,"
            + " arrival bigserial NOT NULL, processed_at timestamptz)");
    sql("GRANT USAGE ON SEQUENCE arrive.granted_arrival_seq TO \"" + app.name() + "\"");
    List<String> before = sequencePrivileges("arrive.granted_arrival_seq");
    manager.enableTracking(
        TrackingSpec.builder("granted", "arrive.granted").arrivalColumn("arrival").build());
    Login consumer = roles.create("arrival_consumer");
    sql("GRANT USAGE ON SCHEMA arrive TO \"" + consumer.name() + "\"");
    sql("SELECT inbox.grant_inbox('granted', ?, 'consumer')", consumer.name());
    send("granted", "m", 5);
    // The claim moves its floors, which reads the sequence's last value.
    assertThat(consumer.count("SELECT count(*) FROM inbox.claim_granted(10)")).isEqualTo(5);
    assertThat(sequencePrivileges("arrive.granted_arrival_seq")).isNotEqualTo(before);

    manager.dropInbox("granted", false);
    assertThat(sequencePrivileges("arrive.granted_arrival_seq")).isEqualTo(before);
  }

  /** Who holds which privilege on a sequence, owner and grantor aside. */
  private static List<String> sequencePrivileges(String sequence) {
    return jdbi.withHandle(
        h ->
            h.createQuery(
                    "SELECT x.grantee::regrole || ':' || x.privilege_type || ':' || x.is_grantable"
                        + " FROM pg_class c, aclexplode(c.relacl) x"
                        + " WHERE c.oid = ?::regclass AND x.grantee <> c.relowner ORDER BY 1")
                .bind(0, sequence)
                .mapTo(String.class)
                .list());
  }

  @Test
  void an_arrival_column_that_the_floors_cannot_rely_on_is_refused() {
    sql(
        "CREATE TABLE arrive.refused (event_id text PRIMARY KEY, event_type text NOT NULL,"
            + " processed_at timestamptz, plain_number bigint NOT NULL, maybe bigserial,"
            + " cached bigint GENERATED ALWAYS AS IDENTITY (CACHE 20), label text NOT NULL)");
    sql("ALTER TABLE arrive.refused ALTER COLUMN maybe DROP NOT NULL");
    for (String[] c :
        new String[][] {
          {"plain_number", "is not filled from a sequence of its own"},
          {"maybe", "must be NOT NULL"},
          {"cached", "must count up without a cache"},
          {"label", "cannot be the arrival column"},
          {"missing", "does not exist"}
        }) {
      assertThatThrownBy(
              () ->
                  sql(
                      "SELECT inbox.enable_inbox_tracking('refused', 'arrive.refused',"
                          + " p_arrival_column => ?)",
                      c[0]))
          .as(c[0])
          .hasMessageContaining(c[1]);
    }
    assertThat(count("SELECT count(*) FROM inbox.inbox_config WHERE inbox_name = 'refused'"))
        .isZero();
  }
}
