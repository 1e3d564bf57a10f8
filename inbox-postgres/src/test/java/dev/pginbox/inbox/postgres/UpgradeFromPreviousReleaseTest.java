package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Installs the SQL API of release 0.1.0 (kept verbatim under {@code upgrade/0.1.0}), fills inboxes
 * of every kind with messages in every state, re-installs today's SQL over it and checks that the
 * messages survived, that the upgrade went through the ledger of steps ({@code inbox.schema_steps},
 * which 0.1.0 did not have) and that every inbox behaves as a new one would, on objects of today's
 * generators. The same upgrade through psql and {@code install.sql} is checked on a database of its
 * own.
 */
class UpgradeFromPreviousReleaseTest {

  private static final String[] INBOXES = {
    "up_plain", "up_ordered", "up_priority", "up_parts", "up_tracked"
  };

  private static Jdbi jdbi;
  private static List<Map<String, Object>> messagesBefore;
  private static List<Map<String, Object>> messagesAfter;
  private static List<Map<String, Object>> ledgerAfterFirstInstall;
  private static List<Map<String, Object>> ledgerAfterSecondInstall;

  @BeforeAll
  static void installPreviousReleaseThenUpgrade() {
    TestDatabase database = TestPostgres.shared().newDatabase("inbox_upgrade");
    PostgresInboxManager manager = PostgresInboxManager.create(database.dataSource());
    jdbi = manager.jdbi();
    jdbi.useHandle(h -> SqlScripts.install(h, "upgrade/0.1.0/install.sql"));
    jdbi.useHandle(UpgradeFromPreviousReleaseTest::createInboxesWithMessages);
    messagesBefore = allMessages();

    manager.install();
    ledgerAfterFirstInstall = ledger(jdbi);
    manager.install(); // a second run over the upgraded database changes nothing
    ledgerAfterSecondInstall = ledger(jdbi);
    messagesAfter = allMessages();
  }

  /** The steps these files have, as the ledger records them. */
  static final List<String> STEPS =
      List.of(
          "1 baseline",
          "2 drop_functions_replaced_since_0_1_0",
          "3 failure_history",
          "4 dead_letters_by_aggregate",
          "5 heads_from_the_order_floor",
          "6 tracked_arrival_column");

  private static List<Map<String, Object>> ledger(Jdbi jdbi) {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT step, name, applied_at FROM inbox.schema_steps ORDER BY step")
                .mapToMap()
                .list());
  }

  private static List<String> steps(List<Map<String, Object>> ledger) {
    return ledger.stream().map(row -> row.get("step") + " " + row.get("name")).toList();
  }

  /** Through the 0.1.0 SQL API only. */
  private static void createInboxesWithMessages(Handle h) {
    h.execute("SELECT inbox.create_inbox('up_plain', p_max_retries => 2)");
    h.execute("SELECT inbox.create_inbox('up_ordered', p_max_retries => 2)");
    h.execute("SELECT inbox.enable_inbox_ordering('up_ordered', 'aggregate_id', 'seq')");
    h.execute("SELECT inbox.create_inbox('up_priority')");
    h.execute("SELECT inbox.enable_inbox_priority('up_priority', 'event_type', '{\"urgent\": 1}')");
    h.execute("SELECT inbox.create_inbox('up_parts')");
    h.execute("SELECT inbox.worker_heartbeat('up_parts', 'w1', 2, interval '1 hour')");
    h.execute(
        "CREATE TABLE public.app_events (id bigint PRIMARY KEY, kind text NOT NULL,"
            + " done_at timestamptz, arrived timestamptz NOT NULL DEFAULT now(), attempts int,"
            + " last_error text)");
    h.execute(
        "SELECT inbox.enable_inbox_tracking('up_tracked', 'public.app_events', 'id', 'done_at',"
            + " 'kind', 'arrived', NULL, 'attempts', 'last_error', p_max_retries => 2)");

    // Release 0.1.0 let these two want the same object: "next_coll" is coll's ordering view.
    h.execute("SELECT inbox.create_inbox('coll')");
    h.execute("SELECT inbox.create_inbox('next_coll')");
    h.execute("INSERT INTO inbox.next_coll (event_id) VALUES ('kept')");
    for (String inbox : new String[] {"up_plain", "up_priority", "up_parts"}) {
      h.execute(
          "INSERT INTO inbox."
              + inbox
              + " (event_id, event_type, aggregate_id, payload) VALUES"
              + " ('done', 'normal', 'x', '{\"n\": 0}'), ('dead', 'normal', 'x', '{\"n\": 1}'),"
              + " ('retrying', 'normal', 'y', NULL), ('waiting', 'normal', 'z', '{\"n\": 3}'),"
              + " ('later', 'urgent', 'w', '{\"n\": 4}')");
      h.execute("UPDATE inbox." + inbox + " SET processed_at = now() WHERE event_id = 'done'");
      h.execute("SELECT inbox.mark_failed(?, 'retrying', 'boom', interval '1 hour')", inbox);
      h.execute("SELECT inbox.mark_failed(?, 'dead', 'boom 1', interval '0')", inbox);
      h.execute("SELECT inbox.mark_failed(?, 'dead', 'boom 2', interval '0')", inbox);
      h.execute("SELECT inbox.mark_failed(?, 'dead', 'boom 3', interval '0')", inbox);
    }
    // Aggregate A: a dead head blocks a1; aggregate B: two waiting in order.
    h.execute(
        "INSERT INTO inbox.up_ordered (event_id, event_type, aggregate_id) VALUES"
            + " ('a0', 't', 'A'), ('a1', 't', 'A'), ('b0', 't', 'B'), ('b1', 't', 'B')");
    h.execute("SELECT inbox.mark_failed('up_ordered', 'a0', 'boom', interval '0')");
    h.execute("SELECT inbox.mark_failed('up_ordered', 'a0', 'boom', interval '0')");
    h.execute(
        "INSERT INTO public.app_events (id, kind, done_at, attempts) VALUES"
            + " (1, 'k', now(), NULL), (2, 'k', NULL, 2), (3, 'k', NULL, 1), (4, 'k', NULL, NULL)");
  }

  private static List<Map<String, Object>> allMessages() {
    return jdbi.withHandle(
        h ->
            h.createQuery(
                    "SELECT * FROM (SELECT 'inbox.' || inbox_name AS tbl, event_id, event_type,"
                        + " aggregate_id, payload::text, received_at, processed_at, error,"
                        + " retry_count, next_attempt_at, seq, priority, bucket FROM ("
                        + " SELECT 'up_plain' AS inbox_name, * FROM inbox.up_plain UNION ALL"
                        + " SELECT 'up_ordered', * FROM inbox.up_ordered UNION ALL"
                        + " SELECT 'up_priority', * FROM inbox.up_priority UNION ALL"
                        + " SELECT 'up_parts', * FROM inbox.up_parts) m"
                        + " UNION ALL SELECT 'public.app_events', id::text, kind, NULL, NULL,"
                        + " arrived, done_at, last_error, attempts, NULL, NULL, NULL, NULL"
                        + " FROM public.app_events) x ORDER BY tbl, event_id")
                .mapToMap()
                .list());
  }

  private static List<String> claim(String inbox, int limit) {
    return jdbi.inTransaction(
        h ->
            h.createQuery("SELECT event_id FROM inbox.claim_" + inbox + "(" + limit + ")")
                .mapTo(String.class)
                .list());
  }

  private static <T> T one(String query, Class<T> type, Object... args) {
    return jdbi.withHandle(h -> h.select(query, args).mapTo(type).one());
  }

  @Test
  void inboxes_made_before_the_failure_history_get_its_columns_and_record_it() {
    for (String table :
        List.of("up_plain", "up_ordered", "up_priority", "up_parts", "up_tracked_retry_state")) {
      assertThat(
              one(
                  "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'inbox'"
                      + " AND table_name = ? AND column_name IN"
                      + " ('failing_since', 'last_failed_at', 'died_at', 'attempts')",
                  Long.class,
                  table))
          .as(table)
          .isEqualTo(4);
    }
    assertThat(one("SELECT to_regclass('inbox.up_plain_failed_idx')::text", String.class))
        .isEqualTo("inbox.up_plain_failed_idx");
    // A dead letter of before: still dead, with no death time or attempts recorded.
    assertThat(
            one(
                "SELECT concat_ws(',', state, coalesce(died_at::text, '-'),"
                    + " coalesce(attempts::text, '-')) FROM inbox.inbox_message('up_parts', 'dead')",
                String.class))
        .isEqualTo("dead,-,-");
    // Rolled back: the other tests see the messages as they were.
    jdbi.useTransaction(
        h -> {
          h.execute("SELECT inbox.mark_failed('up_plain', 'retrying', 'again', interval '1 hour')");
          h.execute("INSERT INTO public.app_events (id, kind) VALUES (99, 'k')");
          h.execute("SELECT inbox.mark_failed('up_tracked', '99', 'tracked again')");
          assertThat(
                  h.select(
                          "SELECT concat_ws(',', retry_count, attempts -> 0 ->> 'attempt',"
                              + " attempts -> 0 ->> 'error', failing_since IS NOT NULL)"
                              + " FROM inbox.inbox_message('up_plain', 'retrying')")
                      .mapTo(String.class)
                      .one())
              .isEqualTo("2,2,again,t");
          assertThat(
                  h.select(
                          "SELECT attempts -> 0 ->> 'error' FROM inbox.inbox_message('up_tracked', '99')")
                      .mapTo(String.class)
                      .one())
              .isEqualTo("tracked again");
          h.rollback();
        });
  }

  @Test
  void messages_survive_the_upgrade_unchanged() {
    assertThat(messagesBefore).hasSize(3 * 5 + 4 + 4);
    assertThat(messagesAfter).isEqualTo(messagesBefore);
  }

  @Test
  void the_upgrade_applies_every_step_once_and_records_it() {
    assertThat(steps(ledgerAfterFirstInstall)).isEqualTo(STEPS);
    // The second install found every step in the ledger: no step ran again.
    assertThat(ledgerAfterSecondInstall).isEqualTo(ledgerAfterFirstInstall);
    assertThat(one("SELECT inbox.schema_version()", Integer.class)).isEqualTo(STEPS.size());
  }

  @Test
  void install_sql_upgrades_a_database_of_0_1_0_through_the_ledger() throws Exception {
    assumeTrue(Files.exists(Psql.inboxInstallScript()), "sql/inbox/install.sql next to the module");
    assumeTrue(Psql.available(), "psql is on PATH");
    TestDatabase database = TestPostgres.shared().newDatabase("inbox_upgrade_psql");
    Jdbi db = PostgresInboxManager.create(database.dataSource()).jdbi();
    db.useHandle(h -> SqlScripts.install(h, "upgrade/0.1.0/install.sql"));
    db.useHandle(
        h -> {
          h.execute("SELECT inbox.create_inbox('by_psql')");
          h.execute("INSERT INTO inbox.by_psql (event_id, event_type) VALUES ('kept', 't')");
        });

    Psql.Result first =
        Psql.run(
            database, "-v", "ON_ERROR_STOP=1", "-q", "-f", Psql.inboxInstallScript().toString());
    assertThat(first.exitCode()).as(first.output()).isZero();
    List<Map<String, Object>> ledgerFirst = ledger(db);
    Psql.Result second =
        Psql.run(
            database, "-v", "ON_ERROR_STOP=1", "-q", "-f", Psql.inboxInstallScript().toString());
    assertThat(second.exitCode()).as(second.output()).isZero();

    assertThat(steps(ledgerFirst)).isEqualTo(STEPS);
    assertThat(ledger(db)).isEqualTo(ledgerFirst);
    List<String> claimed =
        db.inTransaction(
            h ->
                h.createQuery("SELECT event_id FROM inbox.claim_by_psql(10)")
                    .mapTo(String.class)
                    .list());
    assertThat(claimed).containsExactly("kept");
    Integer objectsVersion =
        db.withHandle(
            h ->
                h.select(
                        "SELECT objects_version FROM inbox.inbox_config WHERE inbox_name = 'by_psql'")
                    .mapTo(Integer.class)
                    .one());
    assertThat(objectsVersion).isEqualTo(STEPS.size());
  }

  @Test
  void installing_over_a_database_with_a_later_step_is_refused_and_changes_nothing() {
    TestDatabase database = TestPostgres.shared().newDatabase("inbox_newer");
    PostgresInboxManager newer = PostgresInboxManager.create(database.dataSource());
    newer.install();
    newer.jdbi().useHandle(h -> h.execute("INSERT INTO inbox.schema_steps VALUES (99, 'future')"));

    assertThatThrownBy(newer::install)
        .hasMessageContaining("schema version 99, newer than these files");
    assertThat(steps(ledger(newer.jdbi()))).last().isEqualTo("99 future");
  }

  @Test
  void every_inbox_is_rebuilt_by_the_current_generators() {
    assertThat(one("SELECT inbox.schema_version()", Integer.class)).isEqualTo(STEPS.size());
    for (String inbox : INBOXES) {
      assertThat(
              one(
                  "SELECT objects_version FROM inbox.inbox_config WHERE inbox_name = ?",
                  Integer.class,
                  inbox))
          .as(inbox)
          .isEqualTo(STEPS.size());
    }
    // The generated functions of 0.1.0 set no search_path; their replacements do. The tracked
    // inbox had none and gets one: five.
    assertThat(
            one(
                "SELECT count(*) FROM pg_proc WHERE pronamespace = 'inbox'::regnamespace"
                    + " AND proname ~ '^claim_up_'"
                    + " AND 'search_path=pg_catalog, pg_temp' = ANY (proconfig)",
                Long.class))
        .isEqualTo(5);
    assertThat(one("SELECT to_regclass('inbox.up_tracked_retry_state')::text", String.class))
        .as("the tracked inbox's side table")
        .isEqualTo("inbox.up_tracked_retry_state");
  }

  @Test
  void a_plain_inbox_claims_fails_and_replays_after_the_upgrade() {
    assertThat(claim("up_plain", 10)).containsExactly("waiting", "later");
    String replayed =
        one(
            "SELECT inbox.replay_inbox_messages('up_plain', p_event_ids => ARRAY['dead'])"
                + "::text",
            String.class);
    assertThat(replayed).isEqualTo("1");
    String claimedAndFailed =
        jdbi.inTransaction(
            h -> {
              List<String> claimed =
                  h.createQuery("SELECT event_id FROM inbox.claim_up_plain(10)")
                      .mapTo(String.class)
                      .list();
              String result =
                  h.select(
                          "SELECT inbox.mark_failed('up_plain', 'dead', 'again', interval '1 hour')")
                      .mapTo(String.class)
                      .one();
              return claimed + " " + result;
            });
    assertThat(claimedAndFailed).isEqualTo("[dead] retry");
    jdbi.useHandle(
        h ->
            h.execute(
                "INSERT INTO inbox.up_plain (event_id, event_type) VALUES ('new', 'normal')"));
    assertThat(claim("up_plain", 10)).containsExactly("new");
    assertThat(one("SELECT inbox.inbox_health('up_plain') ->> 'pending_count'", String.class))
        .isEqualTo("2"); // retrying, dead (replayed, failed again, backing off)
  }

  @Test
  void the_batch_send_of_an_upgraded_inbox_skips_stored_ids_and_inserts_new_ones() {
    // "waiting" was stored by 0.1.0; the send function is the current generator's. Rolled back:
    // the other tests see the inbox as the upgrade left it.
    List<String> sent =
        jdbi.inTransaction(
            h -> {
              int first =
                  h.select(
                          "SELECT inbox.send_up_plain(ARRAY['fresh', 'waiting'],"
                              + " ARRAY['normal', 'normal'], NULL, NULL, NULL, NULL)")
                      .mapTo(Integer.class)
                      .one();
              int second =
                  h.select(
                          "SELECT inbox.send_up_plain(ARRAY['fresh2'], ARRAY['normal'],"
                              + " NULL, NULL, NULL, NULL)")
                      .mapTo(Integer.class)
                      .one();
              List<String> rows =
                  h.createQuery(
                          "SELECT event_id FROM inbox.up_plain WHERE event_id ~ '^fresh' ORDER BY seq")
                      .mapTo(String.class)
                      .list();
              h.rollback();
              return List.of(first + " " + second, String.join(",", rows));
            });
    assertThat(sent).containsExactly("1 1", "fresh,fresh2");
  }

  @Test
  void an_ordered_inbox_still_hands_out_heads_only() {
    assertThat(claim("up_ordered", 10)).containsExactly("b0");
    assertThat(claim("up_ordered", 10)).containsExactly("b1");
    assertThat(claim("up_ordered", 10)).isEmpty(); // a1 waits behind the dead a0
    assertThat(
            one(
                "SELECT issue FROM inbox.inbox_ordering_gaps('up_ordered') WHERE aggregate_id = 'A'",
                String.class))
        .isEqualTo("blocked_by_dead_letter");
    jdbi.useHandle(h -> h.execute("SELECT inbox.replay_inbox_messages('up_ordered', ARRAY['a0'])"));
    assertThat(claim("up_ordered", 10)).containsExactly("a0");
    assertThat(claim("up_ordered", 10)).containsExactly("a1");
  }

  @Test
  void a_priority_inbox_keeps_its_map_for_new_messages() {
    jdbi.useHandle(
        h ->
            h.execute(
                "INSERT INTO inbox.up_priority (event_id, event_type) VALUES"
                    + " ('n1', 'normal'), ('u1', 'urgent')"));
    assertThat(one("SELECT priority FROM inbox.up_priority WHERE event_id = 'u1'", Integer.class))
        .isEqualTo(1);
    assertThat(claim("up_priority", 10)).containsExactly("later", "u1", "waiting", "n1");
  }

  @Test
  void a_partitioned_inbox_keeps_its_leases_and_buckets() {
    List<Integer> held =
        jdbi.inTransaction(
            h ->
                h.createQuery("SELECT unnest(inbox.lease_guard('up_parts', 'w1', ARRAY[0, 1]))")
                    .mapTo(Integer.class)
                    .list());
    assertThat(held).containsExactly(0, 1);
    String bucketsOfPartition0 = "inbox.inbox_partition_buckets(0, 2)";
    List<String> expected =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT event_id FROM inbox.up_parts_pending WHERE next_attempt_at <= now()"
                            + " AND bucket = ANY ("
                            + bucketsOfPartition0
                            + ") ORDER BY priority, seq")
                    .mapTo(String.class)
                    .list());
    List<String> claimed =
        jdbi.inTransaction(
            h ->
                h.createQuery(
                        "SELECT event_id FROM inbox.claim_up_parts(10, "
                            + bucketsOfPartition0
                            + ")")
                    .mapTo(String.class)
                    .list());
    assertThat(claimed).isEqualTo(expected);
  }

  @Test
  void a_tracked_table_is_consumed_and_monitored_as_before() {
    List<Long> pending =
        jdbi.withHandle(
            h -> h.createQuery("SELECT id FROM inbox.up_tracked_pending").mapTo(Long.class).list());
    assertThat(pending).containsExactly(3L, 4L);
    assertThat(one("SELECT inbox.mark_failed('up_tracked', '3', 'no')", String.class))
        .isEqualTo("dead");
    assertThat(one("SELECT inbox.mark_processed('up_tracked', '4')", Boolean.class)).isTrue();
    assertThat(one("SELECT inbox.inbox_health('up_tracked') ->> 'dlq_count'", String.class))
        .isEqualTo("2");
    assertThat(
            one("SELECT inbox.replay_inbox_messages('up_tracked', ARRAY['2', '3'])", Integer.class))
        .isEqualTo(2);
    assertThat(one("SELECT inbox.inbox_status('up_tracked') ->> 'status'", String.class))
        .isEqualTo("healthy");
  }

  @Test
  void inboxes_of_0_1_0_whose_names_collide_upgrade_and_drop_without_harming_each_other() {
    assertThatThrownBy(
            () -> jdbi.useHandle(h -> h.execute("SELECT inbox.enable_inbox_ordering('coll')")))
        .hasMessageContaining("collides with inbox 'next_coll'");
    jdbi.useHandle(h -> h.execute("SELECT inbox.drop_inbox('coll', p_cascade => true)"));
    assertThat(claim("next_coll", 10)).containsExactly("kept");
    jdbi.useHandle(h -> h.execute("SELECT inbox.drop_inbox('next_coll', p_cascade => true)"));
    assertThat(
            one(
                "SELECT count(*) FROM pg_class WHERE relnamespace = 'inbox'::regnamespace AND relname ~ 'coll'",
                Long.class))
        .isZero();
  }
}
