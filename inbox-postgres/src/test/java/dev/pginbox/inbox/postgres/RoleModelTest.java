package dev.pginbox.inbox.postgres;

import static dev.pginbox.inbox.postgres.LoginRoles.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The four group roles of the install: a login role in each can do exactly its job through JDBC and
 * is refused everything else; what they were granted survives a re-install and every enable_*. (The
 * consumer running a real worker is in worker/ConsumerRoleTest.)
 */
class RoleModelTest extends InboxTestSupport {

  private static final String INSERT =
      "INSERT INTO inbox.orders (event_id, event_type, source, aggregate_id, payload, trace_id) "
          + "VALUES ('%s', 'order.placed', 'shop', 'ORD-1', '{\"amount\": 49.99}', NULL) "
          + "ON CONFLICT (event_id) DO NOTHING";

  static Login producer;
  static Login consumer;
  static Login operator;
  static Login reader;
  static Login outsider;

  @BeforeAll
  static void rolesAndInbox() throws SQLException {
    manager.createInbox("orders");
    LoginRoles roles = new LoginRoles(database);
    producer = roles.create("producer", "inbox_producer");
    consumer = roles.create("consumer", "inbox_consumer");
    operator = roles.create("operator", "inbox_operator");
    reader = roles.create("reader", "inbox_reader");
    outsider = roles.create("outsider");
  }

  @Test
  void install_creates_the_four_group_roles_without_login() {
    assertThat(
            strings(
                "SELECT rolname FROM pg_roles WHERE rolname LIKE 'inbox\\_%' AND NOT rolcanlogin "
                    + "AND NOT rolsuper AND NOT rolcreaterole ORDER BY 1"))
        .containsSubsequence("inbox_consumer", "inbox_operator", "inbox_producer", "inbox_reader");
  }

  @Test
  void a_producer_sends_with_the_documented_idempotent_insert_and_through_the_java_api()
      throws SQLException {
    producer.execute(INSERT.formatted("p-1"), INSERT.formatted("p-1"));
    Inbox inbox = PostgresInboxManager.create(producer.dataSource()).inbox("orders");
    assertThat(inbox.send(NewMessage.of("p-2", "order.placed", "ORD-2", "{}"))).isTrue();
    assertThat(inbox.send(NewMessage.of("p-2", "order.placed", "ORD-2", "{}"))).isFalse();
    assertThat(
            inbox.sendAll(
                List.of(
                    NewMessage.of("p-3", "t", "a", "{}"),
                    NewMessage.of("p-4", "t", "a", "{}"),
                    NewMessage.of("p-2", "t", "a", "{}"))))
        .isEqualTo(2);
    assertThat(count("SELECT count(*) FROM inbox.orders WHERE event_id LIKE 'p-%'")).isEqualTo(4);
    assertThat(
            count(
                "SELECT count(*) FROM inbox.orders WHERE event_id LIKE 'p-%' AND processed_at IS NULL "
                    + "AND retry_count = 0 AND next_attempt_at = '-infinity' AND error IS NULL"))
        .isEqualTo(4);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "INSERT INTO inbox.orders (event_id, processed_at) VALUES ('b-1', now())",
        "INSERT INTO inbox.orders (event_id, retry_count) VALUES ('b-2', 99)",
        "INSERT INTO inbox.orders (event_id, next_attempt_at) VALUES ('b-3', 'infinity')",
        "INSERT INTO inbox.orders (event_id, received_at) VALUES ('b-4', '-infinity')",
        "INSERT INTO inbox.orders (event_id, error) VALUES ('b-5', 'x')",
        "INSERT INTO inbox.orders (event_id, seq) OVERRIDING SYSTEM VALUE VALUES ('b-6', -1)",
        "INSERT INTO inbox.orders (event_id, priority) VALUES ('b-7', 0)",
        "INSERT INTO inbox.orders (event_id, bucket) VALUES ('b-8', 5)",
        "INSERT INTO inbox.orders (event_id) VALUES ('b-9') "
            + "ON CONFLICT (event_id) DO UPDATE SET processed_at = now()",
        "UPDATE inbox.orders SET payload = '{}'",
        "DELETE FROM inbox.orders",
      })
  void a_producer_cannot_set_bookkeeping_columns_nor_change_rows(String statement) {
    producer.isRefused(statement);
    assertThat(count("SELECT count(*) FROM inbox.orders WHERE event_id LIKE 'b-%'")).isZero();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT payload FROM inbox.orders",
        "SELECT * FROM inbox.orders_dlq",
        "SELECT * FROM inbox.claim_orders(10)",
        "SELECT inbox.mark_processed('orders', 'p-1')",
        "SELECT inbox.inbox_health('orders')",
        "SELECT inbox.worker_heartbeat('orders', 'w', 4, interval '10 seconds')",
        "SELECT inbox.create_inbox('producers_own')",
      })
  void a_producer_reads_no_payload_and_does_nothing_but_send(String statement) {
    producer.isRefused(statement);
  }

  @Test
  void a_consumer_claims_and_marks_but_cannot_send_or_read_the_operator_views()
      throws SQLException {
    sql(INSERT.formatted("c-1"));
    sql(INSERT.formatted("c-2"));
    consumer.execute(
        "BEGIN",
        "SELECT * FROM inbox.claim_orders(100)",
        "SELECT inbox.mark_failed('orders', 'c-2', 'boom')",
        "COMMIT");
    assertThat(
            count(
                "SELECT count(*) FROM inbox.orders WHERE event_id = 'c-1' AND processed_at IS NOT NULL"))
        .isEqualTo(1);
    assertThat(count("SELECT retry_count FROM inbox.orders WHERE event_id = 'c-2'")).isEqualTo(1);
    consumer.isRefused(INSERT.formatted("c-3"));
    consumer.isRefused(
        "SELECT inbox.send_orders('{c-3}', '{t}', '{s}', '{a}', '{null}'::jsonb[], '{null}')");
    consumer.isRefused("SELECT * FROM inbox.orders_dlq");
    consumer.isRefused("SELECT inbox.grant_inbox('orders', current_user, 'operator')");
    consumer.isRefused("UPDATE inbox.inbox_config SET max_retries = 100");
    consumer.isRefused("DROP TABLE inbox.orders");
  }

  @Test
  void an_operator_runs_health_status_dead_letters_replay_and_purge_through_the_java_api()
      throws SQLException {
    sql(INSERT.formatted("o-1"));
    sql("UPDATE inbox.orders SET retry_count = 3, error = 'dead' WHERE event_id = 'o-1'");
    Inbox inbox = PostgresInboxManager.create(operator.dataSource()).inbox("orders");
    assertThat(inbox.health().dlqCount()).isGreaterThanOrEqualTo(1);
    assertThat(inbox.status()).isNotNull();
    assertThat(inbox.deadLetters(100)).extracting(m -> m.eventId()).contains("o-1");
    assertThat(inbox.stats()).isNotEmpty();
    assertThat(inbox.operations().replay(DeadLetterSelection.ids(List.of("o-1")))).isEqualTo(1);
    assertThat(inbox.operations().purge(100)).isNotNull();

    operator.isRefused(INSERT.formatted("o-2"));
    operator.isRefused("SELECT inbox.worker_heartbeat('orders', 'w', 4, interval '10 seconds')");
    operator.isRefused(
        "BEGIN",
        "SELECT inbox.lease_guard('orders', 'w', '{0}')",
        "SELECT * FROM inbox.inbox_partition_leases FOR KEY SHARE");
    operator.isRefused("SELECT inbox.grant_inbox('orders', current_user, 'consumer')");
    operator.isRefused("SELECT inbox.enable_inbox_ordering('orders')");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT inbox.replay_inbox_messages('orders', p_event_type => 'order.placed')",
        "SELECT inbox.purge_inbox('orders')",
        "SELECT inbox.mark_processed('orders', 'p-1')",
        "SELECT * FROM inbox.claim_orders(1)",
        "SELECT inbox.worker_heartbeat('orders', 'w', 4, interval '10 seconds')",
        "SELECT * FROM inbox.inbox_config FOR NO KEY UPDATE",
        "INSERT INTO inbox.orders (event_id) VALUES ('r-1')",
      })
  void a_reader_changes_nothing(String statement) {
    reader.isRefused(statement);
  }

  @Test
  void a_reader_reads_health_status_and_views() throws SQLException {
    Inbox inbox = PostgresInboxManager.create(reader.dataSource()).inbox("orders");
    assertThat(inbox.health().inbox()).isEqualTo("orders");
    assertThat(inbox.status()).isNotNull();
    reader.execute(
        "SELECT * FROM inbox.orders_pending",
        "SELECT * FROM inbox.orders_dlq",
        "SELECT * FROM inbox.orders_stats",
        "SELECT * FROM inbox.inbox_partition_leases");
  }

  @Test
  void a_role_in_no_group_is_refused_the_schema() {
    outsider.isRefused("SELECT inbox.inbox_health('orders')");
    outsider.isRefused(INSERT.formatted("x-1"));
  }

  @Test
  void grants_survive_reinstall_and_every_enable_call() throws SQLException {
    manager.createInbox("kept");
    Login handMade = new LoginRoles(database).create("dashboard");
    sql("GRANT USAGE ON SCHEMA inbox TO \"" + handMade.name() + "\"");
    sql("GRANT SELECT ON inbox.kept_dlq TO \"" + handMade.name() + "\"");
    Login perInbox = new LoginRoles(database).create("kept_reader");
    sql("SELECT inbox.grant_inbox('kept', ?, 'reader')", perInbox.name());

    manager.install();
    manager.enableOrdering("kept");
    manager.enablePriority("kept", "event_type", Map.of("urgent", 1));
    manager.install();

    handMade.execute("SELECT * FROM inbox.kept_dlq");
    perInbox.execute(
        "SELECT * FROM inbox.kept_pending",
        "SELECT * FROM inbox.next_kept",
        "SELECT inbox.inbox_health('kept')");
    reader.execute("SELECT * FROM inbox.next_kept", "SELECT * FROM inbox.kept_stats");
    producer.execute(INSERT.replace("orders", "kept").formatted("k-1"));
    // Per inbox: the role of grant_inbox reads kept, not orders.
    perInbox.isRefused("SELECT * FROM inbox.orders_pending");

    manager.disableOrdering("kept");
    perInbox.execute("SELECT * FROM inbox.kept_dlq");
    assertThat(
            strings(
                "SELECT role_name FROM inbox.inbox_grants WHERE inbox_name = 'kept' AND kind = 'reader'"))
        .containsExactly(perInbox.name());
  }

  @Test
  void revoke_inbox_takes_back_one_kind_and_keeps_the_others() throws SQLException {
    manager.createInbox("revoked");
    Login both = new LoginRoles(database).create("both");
    sql("SELECT inbox.grant_inbox('revoked', ?, 'reader')", both.name());
    sql("SELECT inbox.grant_inbox('revoked', ?, 'producer')", both.name());
    both.execute(INSERT.replace("orders", "revoked").formatted("v-1"));
    sql("SELECT inbox.revoke_inbox('revoked', ?, 'producer')", both.name());
    both.isRefused(INSERT.replace("orders", "revoked").formatted("v-2"));
    both.execute("SELECT * FROM inbox.revoked_dlq");
  }

  @Test
  void grant_inbox_rejects_unknown_kinds_roles_and_inboxes() {
    refused(() -> producer.execute("SELECT inbox.grant_inbox('orders', 'postgres', 'reader')"));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> sql("SELECT inbox.grant_inbox('orders', 'no_such_role_x', 'reader')"))
        .hasMessageContaining("does not exist");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> sql("SELECT inbox.grant_inbox('orders', ?, 'owner')", producer.name()))
        .hasMessageContaining("invalid kind");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> sql("SELECT inbox.grant_inbox('no_inbox', ?, 'reader')", producer.name()))
        .hasMessageContaining("does not exist");
  }
}
