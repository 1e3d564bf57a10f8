package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.InboxAlreadyExistsException;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.NewMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** Create, drop, names and install. */
class InboxLifecycleTest extends InboxTestSupport {

  private static long objectsInSchemaInbox() {
    return count(
        "SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE n.nspname = 'inbox') + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n"
            + " ON n.oid = p.pronamespace WHERE n.nspname = 'inbox') + (SELECT count(*) FROM inbox.inbox_config)");
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "x; drop table y",
        "Robert'); --",
        "Orders",
        "1abc",
        "_x",
        "a-b",
        "a b",
        "abcdefghijabcdefghijabcdefghijabcdefghijK",
        "abcdefghijabcdefghijabcdefghijabcdefghij1",
        "ünicode"
      })
  void hostile_or_invalid_names_are_rejected_and_nothing_is_created(String name) {
    long before = objectsInSchemaInbox();
    assertThatThrownBy(() -> manager.createInbox(name))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("invalid inbox name");
    // the SQL API rejects them on its own, for callers that are not Java
    assertThatThrownBy(() -> sql("SELECT inbox.create_inbox(?)", name))
        .hasMessageContaining("invalid inbox name");
    assertThat(objectsInSchemaInbox()).isEqualTo(before);
  }

  @Test
  void the_longest_valid_name_works_with_every_derived_object() {
    String name = "a".repeat(40);
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name);
    manager.enablePriority(name, "event_type", Map.of("x", 1));
    inbox.send(NewMessage.of("e", "x", "agg", null));
    assertThat(inbox.pending(1)).hasSize(1);
    assertThat(strings("SELECT event_id FROM inbox.next_" + name)).containsExactly("e");
    manager.dropInbox(name, true);
    assertThat(manager.exists(name)).isFalse();
  }

  @Test
  void ids_compare_byte_by_byte_whatever_the_database_collation() {
    String name = "bytewise";
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name);
    assertThat(
            strings(
                "SELECT a.attname || ' ' || a.attcollation::regcollation FROM pg_attribute a"
                    + " WHERE a.attrelid = 'inbox.bytewise'::regclass"
                    + " AND a.attname IN ('event_id', 'aggregate_id') ORDER BY a.attname"))
        .containsExactly("aggregate_id \"C\"", "event_id \"C\"");
    // The ordering index follows its column, and the head test still finds an aggregate's earlier
    // message when the aggregate id is compared with a value in the database's collation.
    assertThat(
            strings(
                "SELECT i.indcollation[0]::regcollation::text FROM pg_index i"
                    + " WHERE i.indexrelid = 'inbox.bytewise_ordering_idx'::regclass"))
        .containsExactly("\"C\"");
    inbox.send(NewMessage.of("first", "t", "Agg", null));
    inbox.send(NewMessage.of("second", "t", "Agg", null));
    assertThat(strings("SELECT event_id FROM inbox.claim_bytewise(10)")).containsExactly("first");
    assertThat(
            count(
                "SELECT count(*) FROM inbox.bytewise WHERE aggregate_id = ?::text COLLATE \"default\"",
                "Agg"))
        .isEqualTo(2);
  }

  @Test
  void creating_an_inbox_twice_is_a_clear_error() {
    manager.createInbox("twice");
    assertThatThrownBy(() -> manager.createInbox("twice"))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("already exists")
        .satisfies(e -> assertThat(((InboxException) e).inbox()).contains("twice"));
  }

  @Test
  void creating_over_a_foreign_table_or_view_is_refused_and_leaves_it_alone() {
    sql("CREATE TABLE inbox.foreign_tbl (id int)");
    sql("INSERT INTO inbox.foreign_tbl VALUES (1)");
    assertThatThrownBy(() -> manager.createInbox("foreign_tbl"))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("is not an inbox");
    sql("CREATE VIEW inbox.foreign_view_pending AS SELECT 1 AS x");
    assertThatThrownBy(() -> manager.createInbox("foreign_view"))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("foreign_view_pending");
    assertThat(count("SELECT count(*) FROM inbox.foreign_tbl")).isEqualTo(1);
    assertThat(manager.exists("foreign_tbl")).isFalse();
    assertThat(manager.exists("foreign_view")).isFalse();
  }

  @Test
  void drop_without_cascade_keeps_the_table_and_with_cascade_drops_it() {
    PostgresInbox kept = manager.createInbox("drop_keep");
    kept.send(NewMessage.of("e", "t", "a", null));
    manager.enableOrdering("drop_keep");
    manager.dropInbox("drop_keep", false);
    assertThat(manager.exists("drop_keep")).isFalse();
    assertThat(count("SELECT count(*) FROM inbox.drop_keep")).isEqualTo(1);
    assertThat(strings("SELECT to_regclass('inbox.drop_keep_pending')::text"))
        .containsExactly((String) null);
    assertThat(strings("SELECT to_regclass('inbox.next_drop_keep')::text"))
        .containsExactly((String) null);
    assertThat(count("SELECT count(*) FROM pg_proc WHERE proname = 'claim_drop_keep'")).isZero();
    assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgname = 'drop_keep_notify'")).isZero();
    assertThatThrownBy(() -> manager.inbox("drop_keep")).isInstanceOf(InboxNotFoundException.class);

    manager.createInbox("drop_all").send(NewMessage.of("e", "t", "a", null));
    manager.dropInbox("drop_all", true);
    assertThat(strings("SELECT to_regclass('inbox.drop_all')::text"))
        .containsExactly((String) null);
    assertThat(count("SELECT count(*) FROM pg_proc WHERE proname LIKE '%drop_all'")).isZero();
    // and the name is free again
    manager.createInbox("drop_all");
    assertThat(manager.names()).contains("drop_all").doesNotContain("drop_keep");
  }

  @Test
  void operations_on_a_missing_inbox_are_not_found() {
    assertThatThrownBy(() -> manager.inbox("nowhere")).isInstanceOf(InboxNotFoundException.class);
    assertThatThrownBy(() -> manager.dropInbox("nowhere", false))
        .isInstanceOf(InboxNotFoundException.class);
    assertThatThrownBy(() -> manager.enableOrdering("nowhere"))
        .isInstanceOf(InboxNotFoundException.class);
    PostgresInbox gone = manager.createInbox("gone");
    manager.dropInbox("gone", true);
    assertThatThrownBy(gone::health).isInstanceOf(InboxNotFoundException.class);
  }

  @Test
  void bad_ordering_and_priority_arguments_are_invalid_arguments() {
    manager.createInbox("bad_args");
    assertThatThrownBy(() -> manager.enableOrdering("bad_args", "nope", "received_at"))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> manager.enableOrdering("bad_args", "aggregate_id", "x; drop table y"))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThatThrownBy(() -> manager.enablePriority("bad_args", "payload", Map.of("a", 1)))
        .isInstanceOf(InvalidInboxArgumentException.class);
  }

  /**
   * A new inbox table is vacuumed early and unthrottled (its claimed rows' index entries slow every
   * claim until vacuum removes them); an operator's own setting survives a re-install and every
   * rebuild of the inbox's objects.
   */
  @Test
  void a_new_inbox_table_gets_unthrottled_autovacuum_and_keeps_an_operators_setting() {
    manager.createInbox("vacuumed");
    assertThat(
            strings(
                "SELECT unnest(reloptions) FROM pg_class WHERE oid = 'inbox.vacuumed'::regclass"))
        .contains("autovacuum_vacuum_cost_delay=0", "autovacuum_vacuum_scale_factor=0.01");

    sql("ALTER TABLE inbox.vacuumed SET (autovacuum_vacuum_cost_delay = 5)");
    manager.enableOrdering("vacuumed");
    manager.install();
    assertThat(
            strings(
                "SELECT unnest(reloptions) FROM pg_class WHERE oid = 'inbox.vacuumed'::regclass"))
        .contains("autovacuum_vacuum_cost_delay=5")
        .doesNotContain("autovacuum_vacuum_cost_delay=0");
  }

  @Test
  void install_twice_is_safe_and_keeps_inboxes() {
    PostgresInbox inbox = manager.createInbox("survivor");
    inbox.send(NewMessage.of("e", "t", "a", null));
    manager.install();
    manager.install();
    assertThat(manager.inbox("survivor").pending(10)).hasSize(1);
  }

  @Test
  void install_sql_runs_through_psql_twice() throws Exception {
    Path script = Psql.inboxInstallScript();
    assumeTrue(Files.exists(script), "sql/inbox/install.sql next to the module");
    assumeTrue(Psql.available(), "psql is on PATH");
    var target = dev.pginbox.inbox.testing.postgres.TestPostgres.shared().newDatabase("inbox_psql");
    for (int run = 0; run < 2; run++) {
      Psql.Result result = Psql.run(target, "-v", "ON_ERROR_STOP=1", "-q", "-f", script.toString());
      assertThat(result.exitCode()).as(result.output()).isZero();
    }
    Psql.Result created =
        Psql.run(
            target,
            "-v",
            "ON_ERROR_STOP=1",
            "-At",
            "-c",
            "SELECT inbox.create_inbox('from_psql'); INSERT INTO inbox.from_psql (event_id) VALUES ('a'), ('a') "
                + "ON CONFLICT (event_id) DO NOTHING; SELECT inbox.inbox_health('from_psql') ->> 'pending_count'");
    assertThat(created.exitCode()).as(created.output()).isZero();
    assertThat(created.output().strip()).endsWith("1");
  }
}
