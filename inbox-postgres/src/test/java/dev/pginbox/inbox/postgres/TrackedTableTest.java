package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxAlreadyExistsException;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.MarkFailedResult;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.TrackingSpec;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.PurgeResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Bring-your-own-table inboxes: renamed columns, a real name different from the inbox name. */
class TrackedTableTest extends InboxTestSupport {

  private static final String COLUMNS =
      "(msg_id uuid PRIMARY KEY DEFAULT gen_random_uuid(), type text NOT NULL,"
          + " done_at timestamptz, arrived timestamptz NOT NULL DEFAULT now(), agg text, attempts int, last_error text,"
          + " body jsonb)";

  @BeforeAll
  static void schema() {
    sql("CREATE SCHEMA app");
  }

  private static TrackingSpec.Builder spec(String name, String table) {
    return TrackingSpec.builder(name, table)
        .idColumn("msg_id")
        .processedAtColumn("done_at")
        .eventTypeColumn("type")
        .receivedAtColumn("arrived")
        .aggregateColumn("agg")
        .retryCountColumn("attempts")
        .errorColumn("last_error")
        .maxRetries(2);
  }

  private static String idOf(String table, String type) {
    return strings("SELECT msg_id::text FROM " + table + " WHERE type = ?", type).get(0);
  }

  private static String tableDefinition(String table) {
    return String.join(
            ",",
            strings(
                "SELECT attname || ' ' || format_type(atttypid, atttypmod) || attnotnull"
                    + " FROM pg_attribute WHERE attrelid = ?::regclass AND attnum > 0 ORDER BY attnum",
                table))
        + "|"
        + String.join(
            ",",
            strings(
                "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = ?::regclass",
                table))
        + "|"
        + count("SELECT count(*) FROM pg_trigger WHERE tgrelid = ?::regclass", table);
  }

  @Test
  void views_health_marks_replay_and_status_work_on_the_real_table_which_is_never_altered() {
    sql("CREATE TABLE app.incoming_events " + COLUMNS);
    String before = tableDefinition("app.incoming_events");
    PostgresInbox inbox = manager.enableTracking(spec("incoming", "app.incoming_events").build());
    assertThat(inbox.managed()).isFalse();
    assertThat(tableDefinition("app.incoming_events")).isEqualTo(before);

    sql(
        "INSERT INTO app.incoming_events (type, agg, body) VALUES ('order', 'A', '{}'), ('order', 'B', NULL),"
            + " ('invoice', 'C', NULL)");
    // one INSERT: equal arrival times, so the id breaks the tie (a tracked table has no arrival
    // counter)
    assertThat(inbox.pending(10))
        .extracting(InboxMessage::eventType)
        .containsExactlyInAnyOrder("order", "order", "invoice");
    assertThat(strings("SELECT type FROM inbox.incoming_pending")).hasSize(3);

    String invoice = idOf("app.incoming_events", "invoice");
    assertThat(inbox.markFailed(invoice, "no such customer")).isEqualTo(MarkFailedResult.RETRY);
    assertThat(inbox.markFailed(invoice, "still no such customer"))
        .isEqualTo(MarkFailedResult.DEAD);
    assertThat(inbox.deadLetters(10))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.eventId()).isEqualTo(invoice);
              assertThat(m.error()).isEqualTo("still no such customer");
              assertThat(m.aggregateId()).isEqualTo("C");
              assertThat(m.bucket()).isEqualTo(dev.pginbox.inbox.Partitioning.bucketOf("C"));
            });
    assertThat(strings("SELECT msg_id::text FROM inbox.incoming_dlq")).containsExactly(invoice);

    String firstOrder =
        strings("SELECT msg_id::text FROM app.incoming_events WHERE agg = 'A'").get(0);
    assertThat(inbox.markProcessed(firstOrder)).isTrue();
    var health = inbox.health();
    assertThat(health.pendingCount()).isEqualTo(1);
    assertThat(health.dlqCount()).isEqualTo(1);
    assertThat(health.throughputPerMinute()).isEqualTo(1);
    assertThat(health.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(inbox.stats())
        .extracting(s -> s.eventType() + ":" + s.pending() + "/" + s.processed() + "/" + s.dead())
        .containsExactlyInAnyOrder("invoice:0/0/1", "order:1/1/0");

    assertThat(inbox.operations().replay(DeadLetterSelection.eventType("order")))
        .as("only dead letters")
        .isZero();
    assertThat(inbox.operations().replay(DeadLetterSelection.ids(List.of(invoice, firstOrder))))
        .isEqualTo(1);
    assertThat(
            strings(
                "SELECT attempts || ':' || last_error FROM app.incoming_events WHERE msg_id = ?::uuid",
                invoice))
        .containsExactly("0:still no such customer");
    assertThat(inbox.health().status()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(inbox.status().json()).contains("\"table\": \"app.incoming_events\"");
    assertThat(inbox.operations().purge(100))
        .as("retention is off for tracked tables by default")
        .isEqualTo(new PurgeResult(0, 0, 0, false));
    assertThat(tableDefinition("app.incoming_events")).isEqualTo(before);
  }

  @Test
  void ordering_and_priority_work_through_the_views() {
    sql("CREATE TABLE app.ordered_events " + COLUMNS);
    PostgresInbox inbox =
        manager.enableTracking(spec("tracked_order", "app.ordered_events").build());
    sql(
        "INSERT INTO app.ordered_events (type, agg, arrived) VALUES ('low', 'A', now() - interval '3 s'),"
            + " ('high', 'A', now() - interval '2 s'), ('high', 'B', now() - interval '1 s')");
    manager.enablePriority("tracked_order", "type", Map.of("high", 1, "low", 9));
    assertThat(inbox.pending(10))
        .extracting(m -> m.eventType() + m.aggregateId())
        .containsExactly("highA", "highB", "lowA");
    manager.enableOrdering("tracked_order", "agg", "arrived");
    assertThat(strings("SELECT type || agg FROM inbox.next_tracked_order ORDER BY agg"))
        .containsExactly("lowA", "highB");
  }

  @Test
  void a_table_without_optional_columns_works_and_replay_explains_what_is_missing() {
    sql("CREATE TABLE app.minimal (id text PRIMARY KEY, kind text, handled_at timestamp)");
    PostgresInbox inbox =
        manager.enableTracking(
            TrackingSpec.builder("minimal", "app.minimal")
                .idColumn("id")
                .eventTypeColumn("kind")
                .processedAtColumn("handled_at")
                .receivedAtColumn(null)
                .aggregateColumn(null)
                .retryCountColumn(null)
                .errorColumn(null)
                .build());
    sql("INSERT INTO app.minimal VALUES ('m1', 'k', NULL), ('m2', 'k', NULL)");
    assertThat(inbox.markProcessed("m1")).isTrue();
    assertThat(inbox.health().pendingCount()).isEqualTo(1);
    assertThat(inbox.pending(10)).extracting(InboxMessage::eventId).containsExactly("m2");
    // Failures go to the inbox's side table: the table has no columns for them.
    assertThat(inbox.operations().replay(DeadLetterSelection.ids(List.of("m2"))))
        .as("not a dead letter")
        .isZero();
    assertThat(inbox.markFailed("m2", "first")).isEqualTo(MarkFailedResult.RETRY);
    assertThat(strings("SELECT retry_count || ':' || error FROM inbox.minimal_retry_state"))
        .containsExactly("1:first");
    assertThat(strings("SELECT kind FROM inbox.minimal_pending"))
        .as("backing off, still pending")
        .hasSize(1);
    assertThatThrownBy(() -> inbox.send(NewMessage.of("m3", "k", null, null)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("tracks an application table");
  }

  @Test
  void the_seed_example_tracks_a_table_without_the_optional_columns_and_status_says_what_is_off() {
    // Verbatim from the API the inbox implements: the optional columns keep their standard names
    // (received_at, aggregate_id, retry_count, error), which this table does not have.
    sql(
        "CREATE TABLE app.seed_events (msg_id text PRIMARY KEY, type text, agg text, body jsonb,"
            + " got_at timestamptz DEFAULT now(), done_at timestamptz)");
    String before = tableDefinition("app.seed_events");
    sql(
        "SELECT inbox.enable_inbox_tracking('my_inbox', 'app.seed_events',"
            + " p_id_column => 'msg_id', p_processed_at_column => 'done_at',"
            + " p_event_type_column => 'type')");
    assertThat(tableDefinition("app.seed_events")).isEqualTo(before);
    assertThat(
            strings(
                "SELECT concat_ws(',', received_at_column, aggregate_column, retry_count_column,"
                    + " error_column) FROM inbox.inbox_config WHERE inbox_name = 'my_inbox'"))
        .containsExactly("");

    sql("INSERT INTO app.seed_events (msg_id, type) VALUES ('e1', 'order.placed')");
    assertThat(strings("SELECT msg_id FROM inbox.my_inbox_pending")).containsExactly("e1");
    assertThat(count("SELECT (inbox.inbox_health('my_inbox') ->> 'pending_count')::bigint"))
        .isEqualTo(1);
    assertThat(
            strings(
                "SELECT f.key || '=' || (f.value ->> 'enabled') || ':' || coalesce(f.value ->> 'reason', '')"
                    + " FROM jsonb_each(inbox.inbox_status('my_inbox') -> 'features') f"
                    + " WHERE f.key IN ('arrival_order', 'aggregate')"
                    + " ORDER BY f.key"))
        .containsExactly(
            "aggregate=false:no aggregate_id column: listings show no aggregate and every message"
                + " falls into the partition bucket of the empty aggregate",
            "arrival_order=false:no received_at column: messages are claimed and listed in id"
                + " order, not by arrival");
  }

  /** Who holds which privilege on a table and its columns, grantor aside. */
  private static List<String> privileges(String table) {
    return strings(
        "SELECT coalesce(x.col, '') || ':' || x.grantee::regrole || ':' || x.privilege_type || ':' || x.is_grantable"
            + " FROM (SELECT NULL AS col, (aclexplode(coalesce(relacl, acldefault('r', relowner)))).*"
            + "       FROM pg_class WHERE oid = ?::regclass"
            + "       UNION ALL SELECT attname::text, (aclexplode(attacl)).* FROM pg_attribute"
            + "       WHERE attrelid = ?::regclass AND attnum > 0 AND attacl IS NOT NULL) x"
            + " WHERE x.grantee <> 0 ORDER BY 1",
        table,
        table);
  }

  @Test
  void dropping_a_tracked_inbox_gives_the_table_back_exactly_the_privileges_it_had()
      throws Exception {
    sql("CREATE TABLE app.acl_events " + COLUMNS);
    LoginRoles roles = new LoginRoles(database);
    String reader = roles.create("acl_app_reader").name();
    sql("GRANT SELECT ON app.acl_events TO " + reader);
    sql("GRANT UPDATE (body) ON app.acl_events TO " + reader + " WITH GRANT OPTION");
    List<String> before = privileges("app.acl_events");
    String consumer = roles.create("acl_consumer").name();

    manager.enableTracking(
        spec("acl_tracked", "app.acl_events")
            .processedRetention(java.time.Duration.ofHours(24))
            .build());
    sql("SELECT inbox.grant_inbox('acl_tracked', '" + consumer + "', 'consumer')");
    assertThat(privileges("app.acl_events")).isNotEqualTo(before);

    manager.dropInbox("acl_tracked", false);
    assertThat(privileges("app.acl_events")).isEqualTo(before);
  }

  @Test
  void
      an_optional_column_present_under_its_standard_name_is_used_and_a_named_missing_one_is_an_error() {
    sql(
        "CREATE TABLE app.standard_names (event_id text PRIMARY KEY, event_type text,"
            + " processed_at timestamptz, received_at timestamptz DEFAULT now(), attempts int)");
    sql("SELECT inbox.enable_inbox_tracking('standard_names', 'app.standard_names')");
    assertThat(
            strings(
                "SELECT concat_ws(',', received_at_column, aggregate_column, retry_count_column,"
                    + " error_column) FROM inbox.inbox_config WHERE inbox_name = 'standard_names'"))
        .containsExactly("received_at");
    assertThat(
            strings(
                "SELECT inbox.inbox_status('standard_names') -> 'features' -> 'message_age' ->> 'enabled'"))
        .containsExactly("true");

    sql(
        "CREATE TABLE app.named_missing (event_id text PRIMARY KEY, event_type text, processed_at timestamptz)");
    for (String column :
        List.of(
            "p_received_at_column => 'arrived'",
            "p_aggregate_column => 'agg'",
            "p_retry_count_column => 'attempts'",
            "p_error_column => 'last_error'")) {
      assertThatThrownBy(
              () ->
                  sql(
                      "SELECT inbox.enable_inbox_tracking('named_missing', 'app.named_missing', "
                          + column
                          + ")"))
          .hasMessageContaining("does not exist in app.named_missing")
          .rootCause()
          .isInstanceOfSatisfying(
              java.sql.SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42703"));
    }
    assertThat(manager.names()).doesNotContain("named_missing");
    // A column of the standard name but an unusable type is not silently skipped.
    sql(
        "CREATE TABLE app.wrong_type (event_id text PRIMARY KEY, event_type text, processed_at timestamptz, retry_count text)");
    assertThatThrownBy(
            () -> sql("SELECT inbox.enable_inbox_tracking('wrong_type', 'app.wrong_type')"))
        .hasMessageContaining("cannot be the retry_count column");
  }

  @Test
  void the_java_spec_maps_a_payload_column_and_asks_for_the_notification_trigger() {
    sql("CREATE TABLE app.spec_events " + COLUMNS);
    PostgresInbox inbox =
        manager.enableTracking(
            spec("spec_events", "app.spec_events")
                .payloadColumn("body")
                .notifyOnInsert(true)
                .build());
    sql("INSERT INTO app.spec_events (type, body) VALUES ('t', '{\"amount\": 5}')");
    assertThat(inbox.pending(10))
        .extracting(InboxMessage::payload)
        .containsExactly("{\"amount\": 5}");
    assertThat(strings("SELECT tgname FROM pg_trigger WHERE tgrelid = 'app.spec_events'::regclass"))
        .containsExactly("spec_events_notify");
    manager.dropInbox("spec_events", false);
    assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'app.spec_events'::regclass"))
        .isZero();
  }

  @Test
  void tracking_validates_table_and_columns_and_creates_nothing_on_error() {
    sql("CREATE TABLE app.validated " + COLUMNS);
    assertThatThrownBy(() -> manager.enableTracking(spec("v1", "app.nope").build()))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("does not exist");
    assertThatThrownBy(
            () ->
                manager.enableTracking(
                    spec("v2", "app.validated; drop table app.validated").build()))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThatThrownBy(
            () -> manager.enableTracking(spec("v3", "app.validated").idColumn("event_id").build()))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("event_id");
    assertThatThrownBy(
            () ->
                manager.enableTracking(
                    spec("v4", "app.validated").retryCountColumn("type").build()))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("retry_count column");
    assertThatThrownBy(
            () ->
                manager.enableTracking(
                    spec("v5", "app.validated").processedAtColumn("agg").build()))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThat(manager.names()).noneMatch(n -> n.matches("v[1-5]"));

    manager.enableTracking(spec("v6", "app.validated").build());
    assertThatThrownBy(() -> manager.enableTracking(spec("v7", "app.validated").build()))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("already belongs to inbox");
  }

  @Test
  void dropping_a_tracked_inbox_never_drops_the_table_with_or_without_cascade() {
    for (boolean cascade : new boolean[] {false, true}) {
      String table = "app.kept_" + cascade;
      sql("CREATE TABLE " + table + " " + COLUMNS);
      sql("INSERT INTO " + table + " (type) VALUES ('x')");
      manager.enableTracking(spec("kept_" + cascade, table).build());
      manager.dropInbox("kept_" + cascade, cascade);
      assertThat(count("SELECT count(*) FROM " + table)).isEqualTo(1);
      assertThat(strings("SELECT to_regclass('inbox.kept_" + cascade + "_pending')::text"))
          .containsExactly((String) null);
    }
  }

  @Test
  void the_worker_functions_work_on_a_tracked_table() {
    sql("CREATE TABLE app.worked " + COLUMNS);
    manager.enableTracking(spec("worked", "app.worked").build());
    sql("INSERT INTO app.worked (type, agg) VALUES ('x', 'A'), ('y', 'B')");
    String x = idOf("app.worked", "x");
    String y = idOf("app.worked", "y");
    assertThat(count("SELECT inbox.count_waiting('worked', 10)")).isEqualTo(2);
    assertThat(strings("SELECT inbox.mark_dead('worked', ?, 'gave up')::text", x))
        .containsExactly("true");
    assertThat(strings("SELECT msg_id::text FROM inbox.worked_dlq")).containsExactly(x);
    assertThat(
            strings(
                "SELECT event_id || ':' || result FROM inbox.record_failures('worked', ARRAY[?, ?],"
                    + " '{e1,e2}', '{NULL,NULL}', '{false,false}')",
                x,
                y))
        .as("a dead letter is left alone")
        .containsExactly(y + ":retry");
    assertThat(count("SELECT inbox.count_waiting('worked', 10)")).as("y backs off").isZero();
    assertThat(strings("SELECT attempts || last_error FROM app.worked WHERE type = 'y'"))
        .containsExactly("1e2");
  }
}
