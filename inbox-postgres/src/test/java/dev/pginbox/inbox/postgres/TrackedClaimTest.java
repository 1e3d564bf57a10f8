package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.Partitioning;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * claim_<name> of a tracked table: the guarantees of a managed inbox's claim (SKIP LOCKED, the mark
 * in the claim's transaction, priority, ordering, partition buckets), the opt-in notification
 * trigger, and the grants on the inbox's side table.
 */
class TrackedClaimTest extends InboxTestSupport {

  @BeforeAll
  static void schema() {
    sql("CREATE SCHEMA shop");
  }

  private static void table(String name) {
    sql(
        "CREATE TABLE shop."
            + name
            + " (id bigint PRIMARY KEY, kind text NOT NULL, agg text, seq_no int,"
            + " done_at timestamptz)");
    sql(
        "SELECT inbox.enable_inbox_tracking(?, ?, p_id_column => 'id', p_event_type_column => 'kind',"
            + " p_processed_at_column => 'done_at', p_aggregate_column => 'agg')",
        name,
        "shop." + name);
  }

  private static List<String> claim(Handle h, String inbox, int limit) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(?)", limit)
        .mapTo(String.class)
        .list();
  }

  @Test
  void a_claim_marks_in_its_transaction_skips_locked_rows_and_a_rollback_returns_them() {
    table("locked");
    sql("INSERT INTO shop.locked (id, kind) SELECT i, 'k' FROM generate_series(1, 3) i");
    try (Handle first = jdbi.open();
        Handle second = jdbi.open()) {
      first.begin();
      assertThat(claim(first, "locked", 1)).containsExactly("1");
      second.begin();
      assertThat(claim(second, "locked", 10))
          .as("the row the first transaction holds is skipped")
          .containsExactly("2", "3");
      second.rollback();
      assertThat(count("SELECT count(*) FROM shop.locked WHERE done_at IS NOT NULL"))
          .as("nothing committed yet")
          .isZero();
      first.commit();
    }
    assertThat(strings("SELECT id::text FROM shop.locked WHERE done_at IS NOT NULL"))
        .containsExactly("1");
    assertThat(strings("SELECT id::text FROM inbox.locked_pending")).containsExactly("2", "3");
  }

  @Test
  void ordering_hands_out_only_the_head_of_each_aggregate_and_failures_block_it() {
    table("heads");
    sql(
        "INSERT INTO shop.heads (id, kind, agg, seq_no) VALUES"
            + " (1, 'k', 'A', 2), (2, 'k', 'A', 1), (3, 'k', 'B', 1), (4, 'k', NULL, NULL)");
    sql("SELECT inbox.enable_inbox_ordering('heads', 'agg', 'seq_no')");
    try (Handle h = jdbi.open()) {
      h.begin();
      assertThat(claim(h, "heads", 10))
          .as("A's head is 2 (sequence 1); no aggregate: always free")
          .containsExactlyInAnyOrder("2", "3", "4");
      assertThat(
              h.select("SELECT inbox.mark_failed('heads', '2', 'later')").mapTo(String.class).one())
          .isEqualTo("retry");
      h.commit();
    }
    try (Handle h = jdbi.open()) {
      assertThat(h.select("SELECT inbox.count_waiting('heads', 10)").mapTo(Integer.class).one())
          .as("the batching rule counts heads only")
          .isZero();
      assertThat(claim(h, "heads", 10)).as("A's head backs off: 1 waits behind it").isEmpty();
    }
    sql("UPDATE inbox.heads_retry_state SET next_attempt_at = '-infinity'");
    try (Handle h = jdbi.open()) {
      assertThat(claim(h, "heads", 10)).containsExactly("2");
      assertThat(claim(h, "heads", 10)).containsExactly("1");
    }
  }

  @Test
  void runs_of_an_aggregate_are_not_taken_from_a_tracked_table_its_claim_hands_out_heads() {
    table("runs");
    sql(
        "INSERT INTO shop.runs (id, kind, agg, seq_no) VALUES"
            + " (1, 'k', 'A', 1), (2, 'k', 'A', 2), (3, 'k', 'A', 3), (4, 'k', 'B', 1)");
    sql("SELECT inbox.enable_inbox_ordering('runs', 'agg', 'seq_no')");
    // The managed signature, so a worker calls both alike; the argument is checked, then ignored.
    assertThat(
            strings(
                "SELECT count(*)::text FROM pg_proc WHERE proname = 'claim_runs'"
                    + " AND pronamespace = 'inbox'::regnamespace"))
        .containsExactly("1");
    String claim = "SELECT event_id FROM inbox.claim_runs(p_limit => 10, p_per_aggregate => 5)";
    try (Handle h = jdbi.open()) {
      h.begin();
      assertThat(h.select(claim).mapTo(String.class).list()).containsExactlyInAnyOrder("1", "4");
      h.commit();
      assertThat(h.select(claim).mapTo(String.class).list()).containsExactly("2");
    }
    assertThatThrownBy(
            () ->
                jdbi.useHandle(
                    h -> h.execute("SELECT * FROM inbox.claim_runs(10, p_per_aggregate => 0)")))
        .hasMessageContaining("messages per aggregate must be at least 1");
  }

  @Test
  void the_view_of_heads_names_the_message_the_claim_takes_when_sequences_tie() {
    sql(
        "CREATE TABLE shop.ties (id bigint PRIMARY KEY, kind text, agg text, seq_no int,"
            + " received_at timestamptz, done_at timestamptz)");
    sql(
        "SELECT inbox.enable_inbox_tracking('ties', 'shop.ties', p_id_column => 'id',"
            + " p_event_type_column => 'kind', p_processed_at_column => 'done_at',"
            + " p_aggregate_column => 'agg')");
    sql("SELECT inbox.enable_inbox_ordering('ties', 'agg', 'seq_no')");
    sql(
        "INSERT INTO shop.ties VALUES (1, 'k', 'A', 7, now(), NULL),"
            + " (2, 'k', 'A', 7, now() - interval '1 hour', NULL)");
    List<String> head = strings("SELECT id::text FROM inbox.next_ties");
    try (Handle h = jdbi.open()) {
      h.begin();
      assertThat(claim(h, "ties", 10)).isEqualTo(head).containsExactly("1");
      h.rollback();
    }
  }

  @Test
  void priority_and_partition_buckets_select_and_order_the_claim() {
    table("parts");
    sql(
        "INSERT INTO shop.parts (id, kind, agg) VALUES"
            + " (1, 'low', 'A'), (2, 'high', 'B'), (3, 'low', 'B'), (4, 'high', 'A')");
    manager.enablePriority("parts", "kind", Map.of("high", 1, "low", 5));
    int bucketOfB = Partitioning.bucketOf("B");
    try (Handle h = jdbi.open()) {
      h.begin();
      assertThat(
              h.select("SELECT event_id FROM inbox.claim_parts(10, ARRAY[?])", bucketOfB)
                  .mapTo(String.class)
                  .list())
          .as("only B's bucket, high priority first")
          .containsExactly("2", "3");
      assertThat(
              h.select(
                      "SELECT bucket || ':' || priority FROM inbox.inbox_messages('parts', 'pending')")
                  .mapTo(String.class)
                  .list())
          .containsExactly(Partitioning.bucketOf("A") + ":1", Partitioning.bucketOf("A") + ":5");
      h.rollback();
    }
  }

  @Test
  void the_notification_trigger_exists_only_when_asked_for_and_notifies_per_statement()
      throws SQLException {
    sql(
        "CREATE TABLE shop.quiet (event_id text PRIMARY KEY, event_type text, processed_at timestamptz)");
    sql(
        "CREATE TABLE shop.loud (event_id text PRIMARY KEY, event_type text, processed_at timestamptz)");
    sql("SELECT inbox.enable_inbox_tracking('quiet', 'shop.quiet')");
    sql("SELECT inbox.enable_inbox_tracking('loud', 'shop.loud', p_notify => true)");
    assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'shop.quiet'::regclass"))
        .isZero();
    assertThat(strings("SELECT tgname FROM pg_trigger WHERE tgrelid = 'shop.loud'::regclass"))
        .containsExactly("loud_notify");
    assertThat(
            strings(
                "SELECT inbox.inbox_status('quiet') -> 'features' -> 'notifications' ->> 'enabled'"))
        .containsExactly("false");
    try (Connection listener = database.connect()) {
      listener.createStatement().execute("LISTEN inbox_loud");
      sql("INSERT INTO shop.loud VALUES ('1', 't', NULL), ('2', 't', NULL)");
      PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(30_000);
      assertThat(received).extracting(PGNotification::getParameter).containsExactly("loud");
    }
    manager.dropInbox("loud", false);
    assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'shop.loud'::regclass"))
        .isZero();
  }

  @Test
  void consumers_write_the_side_table_readers_only_read_it() throws SQLException {
    table("granted");
    sql("INSERT INTO shop.granted (id, kind) VALUES (1, 'k')");
    sql("GRANT USAGE ON SCHEMA shop TO inbox_consumer, inbox_reader");
    LoginRoles roles = new LoginRoles(database);
    Login consumer = roles.create("tracked_consumer", "inbox_consumer");
    Login reader = roles.create("tracked_reader", "inbox_reader");
    consumer.execute(
        "BEGIN",
        "SELECT inbox.claim_granted(10)",
        "SELECT inbox.record_failures('granted', '{1}', '{boom}', '{NULL}', '{false}')",
        "COMMIT");
    assertThat(strings("SELECT retry_count || error FROM inbox.granted_retry_state"))
        .containsExactly("1boom");
    assertThat(reader.count("SELECT count(*) FROM inbox.granted_pending")).isEqualTo(1);
    reader.isRefused("UPDATE inbox.granted_retry_state SET retry_count = 0");
    reader.isRefused("SELECT inbox.mark_failed('granted', '1', 'x')");
  }

  @Test
  void the_dead_letter_tools_read_and_replay_through_the_side_table() {
    table("tools");
    sql("INSERT INTO shop.tools (id, kind) VALUES (1, 'k'), (2, 'k'), (3, 'other')");
    for (String id : List.of("1", "2")) {
      for (int i = 0; i < 3; i++) {
        sql(
            "SELECT inbox.mark_failed('tools', ?, 'timeout after ' || ? || ' ms', interval '0')",
            id,
            i);
      }
    }
    assertThat(
            strings(
                "SELECT event_type || '|' || error_group || '|' || dead FROM inbox.inbox_dlq_groups('tools')"))
        .containsExactly("k|timeout after <n> ms|2");
    assertThat(
            strings(
                "SELECT event_id || ':' || error || ':' || retry_count"
                    + " FROM inbox.inbox_dead_letters('tools')"))
        .containsExactlyInAnyOrder("1:timeout after 2 ms:3", "2:timeout after 2 ms:3");
    assertThat(strings("SELECT state || ':' || error FROM inbox.inbox_message('tools', '1')"))
        .containsExactly("dead:timeout after 2 ms");
    assertThat(count("SELECT inbox.count_dead_letters('tools', p_event_type => 'k')")).isEqualTo(2);
    assertThat(count("SELECT inbox.replay_dlq_group('tools', 'k', 'timeout after <n> ms')"))
        .isEqualTo(2);
    assertThat(strings("SELECT id::text FROM inbox.tools_pending ORDER BY 1"))
        .containsExactly("1", "2", "3");
    sql("SELECT inbox.mark_dead('tools', '3', 'gave up')");
    assertThat(count("SELECT inbox.discard_dead_letters('tools', ARRAY['3'])")).isEqualTo(1);
    assertThat(strings("SELECT id::text FROM shop.tools WHERE done_at IS NOT NULL"))
        .containsExactly("3");
  }

  @Test
  void a_partitioned_table_is_claimed_by_id_because_its_row_ids_repeat_across_partitions() {
    sql(
        "CREATE TABLE shop.split (id bigint PRIMARY KEY, kind text, done_at timestamptz)"
            + " PARTITION BY HASH (id)");
    sql(
        "CREATE TABLE shop.split_0 PARTITION OF shop.split FOR VALUES WITH (MODULUS 2, REMAINDER 0)");
    sql(
        "CREATE TABLE shop.split_1 PARTITION OF shop.split FOR VALUES WITH (MODULUS 2, REMAINDER 1)");
    sql(
        "SELECT inbox.enable_inbox_tracking('split', 'shop.split', p_id_column => 'id',"
            + " p_event_type_column => 'kind', p_processed_at_column => 'done_at')");
    // The first row of each partition has the same ctid (0,1): claiming one must not mark the
    // other.
    sql("INSERT INTO shop.split (id, kind) SELECT i, 'k' FROM generate_series(1, 4) i");
    assertThat(count("SELECT count(DISTINCT ctid) FROM shop.split")).isLessThan(4);
    try (Handle h = jdbi.open()) {
      h.begin();
      List<String> first = claim(h, "split", 1);
      assertThat(first).hasSize(1);
      assertThat(
              h.select("SELECT inbox.mark_failed('split', ?, 'once')", first.get(0))
                  .mapTo(String.class)
                  .one())
          .isEqualTo("retry");
      h.commit();
    }
    assertThat(count("SELECT count(*) FROM shop.split WHERE done_at IS NOT NULL")).isZero();
    // An hour away: the default backoff of a second may run out on a slow machine.
    sql("UPDATE inbox.split_retry_state SET next_attempt_at = now() + interval '1 hour'");
    try (Handle h = jdbi.open()) {
      assertThat(claim(h, "split", 10)).as("the failed one backs off").hasSize(3);
    }
    assertThat(count("SELECT count(*) FROM shop.split WHERE done_at IS NOT NULL")).isEqualTo(3);
  }

  @Test
  void the_byte_budget_counts_the_payload_column_and_always_claims_one() {
    sql(
        "CREATE TABLE shop.sized (id bigint PRIMARY KEY, kind text, body jsonb, done_at timestamptz)");
    sql(
        "SELECT inbox.enable_inbox_tracking('sized', 'shop.sized', p_id_column => 'id',"
            + " p_event_type_column => 'kind', p_processed_at_column => 'done_at',"
            + " p_payload_column => 'body')");
    sql(
        "INSERT INTO shop.sized SELECT i, 'k', jsonb_build_object('pad', repeat('x', 1000))"
            + " FROM generate_series(1, 5) i");
    long oneBody = count("SELECT pg_column_size(body) FROM shop.sized WHERE id = 1");
    try (Handle h = jdbi.open()) {
      h.begin();
      assertThat(
              h.select("SELECT event_id FROM inbox.claim_sized(10, NULL, ?)", 2 * oneBody + 1)
                  .mapTo(String.class)
                  .list())
          .containsExactly("1", "2");
      assertThat(
              h.select("SELECT event_id FROM inbox.claim_sized(10, NULL, 1)")
                  .mapTo(String.class)
                  .list())
          .as("a payload over the budget is claimed alone")
          .containsExactly("3");
      h.rollback();
    }
  }
}
