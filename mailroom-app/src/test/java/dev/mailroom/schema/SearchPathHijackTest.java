package dev.mailroom.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.postgres.SqlScripts;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * search_path hijacking: an unprivileged role allowed to create objects in {@code public} plants
 * functions and operators that shadow the built-ins, each of which records its call and tries to
 * make the role a superuser. A superuser whose session searches {@code public} first (the worst
 * case: even exact built-in signatures are shadowed) then installs both SQL APIs, runs every kind
 * of inbox through its life, signs users up and installs again. None of the planted objects may
 * ever run, and the role must end with no privilege. The last step calls one unpinned function the
 * same way, to prove the trap would have caught a leak.
 */
class SearchPathHijackTest {

  /** name, argument types, result type, the built-in it stands for. */
  private static final String[][] SHADOW_FUNCTIONS = {
    {"format", "text, text", "text", "pg_catalog.format($1, $2)"},
    {"format", "text, text, text", "text", "pg_catalog.format($1, $2, $3)"},
    {"format", "text, text, text, text", "text", "pg_catalog.format($1, $2, $3, $4)"},
    {"now", "", "timestamptz", "pg_catalog.now()"},
    {"lower", "text", "text", "pg_catalog.lower($1)"},
    {"upper", "text", "text", "pg_catalog.upper($1)"},
    {"md5", "text", "text", "pg_catalog.md5($1)"},
    {"substr", "text, integer, integer", "text", "pg_catalog.substr($1, $2, $3)"},
    {"strpos", "text, text", "integer", "pg_catalog.strpos($1, $2)"},
    {"quote_ident", "text", "text", "pg_catalog.quote_ident($1)"},
    {"quote_literal", "text", "text", "pg_catalog.quote_literal($1)"},
    {"get_bit", "bit varying, integer", "integer", "pg_catalog.get_bit($1::bit(1024), $2)"},
    {"jsonb_build_object", "text, text", "jsonb", "pg_catalog.jsonb_build_object($1, $2)"},
    {"jsonb_typeof", "jsonb", "text", "pg_catalog.jsonb_typeof($1)"},
    {"pg_notify", "text, text", "void", "pg_catalog.pg_notify($1, $2)"},
    {"set_config", "text, text, boolean", "text", "pg_catalog.set_config($1, $2, $3)"},
    {"hashtext", "text", "integer", "pg_catalog.hashtext($1)"},
    {"hashtextextended", "text, bigint", "bigint", "pg_catalog.hashtextextended($1, $2)"},
    {"pg_advisory_xact_lock", "bigint", "void", "pg_catalog.pg_advisory_xact_lock($1)"},
    {"to_regclass", "text", "regclass", "pg_catalog.to_regclass($1)"},
    {"random", "", "double precision", "pg_catalog.random()"},
    {"cardinality", "anyarray", "integer", "pg_catalog.cardinality($1)"},
    {"array_to_string", "anyarray, text", "text", "pg_catalog.array_to_string($1, $2)"},
    {"extract", "text, timestamptz", "numeric", "pg_catalog.extract($1, $2)"},
    {"lpad", "text, integer, text", "text", "pg_catalog.lpad($1, $2, $3)"},
    {"gen_random_bytes", "integer", "bytea", "pg_catalog.decode('00', 'hex')"},
  };

  /** operator, left type, right type, result type, the built-in it stands for. */
  private static final String[][] SHADOW_OPERATORS = {
    {"=", "text", "text", "boolean", "$1 OPERATOR(pg_catalog.=) $2"},
    {"<>", "text", "text", "boolean", "$1 OPERATOR(pg_catalog.<>) $2"},
    {"||", "text", "text", "text", "$1 OPERATOR(pg_catalog.||) $2"},
    {"=", "integer", "integer", "boolean", "$1 OPERATOR(pg_catalog.=) $2"},
    {"<", "integer", "integer", "boolean", "$1 OPERATOR(pg_catalog.<) $2"},
    {"<", "timestamptz", "timestamptz", "boolean", "$1 OPERATOR(pg_catalog.<) $2"},
    {"<=", "timestamptz", "timestamptz", "boolean", "$1 OPERATOR(pg_catalog.<=) $2"},
    {">=", "timestamptz", "timestamptz", "boolean", "$1 OPERATOR(pg_catalog.>=) $2"},
    {"+", "timestamptz", "interval", "timestamptz", "$1 OPERATOR(pg_catalog.+) $2"},
    {"-", "timestamptz", "interval", "timestamptz", "$1 OPERATOR(pg_catalog.-) $2"},
  };

  private static TestDatabase db;
  private static String attacker;

  @BeforeAll
  static void anUntrustedRolePlantsShadowsInPublic() throws SQLException {
    db = TestPostgres.shared().newDatabase("hijack");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      assumeTrue(
          bool(s, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"),
          "SKIP: the hijack test needs a superuser to install as (the test database user is not)");
      attacker = "hijacker_" + db.name();
      s.execute("CREATE ROLE " + attacker + " NOLOGIN");
      s.execute("GRANT USAGE, CREATE ON SCHEMA public TO " + attacker);
      s.execute("SET ROLE " + attacker);
      s.execute("CREATE TABLE public.hijack_log (called text, by_role text, at timestamptz)");
      s.execute("GRANT INSERT ON public.hijack_log TO PUBLIC");
      s.execute(
          "CREATE FUNCTION public.hijacked(p_called text) RETURNS void LANGUAGE plpgsql"
              + " SET search_path = pg_catalog AS $$ BEGIN"
              + " INSERT INTO public.hijack_log VALUES (p_called, current_user, clock_timestamp());"
              + " BEGIN EXECUTE 'ALTER ROLE "
              + attacker
              + " SUPERUSER CREATEROLE CREATEDB';"
              + " EXCEPTION WHEN OTHERS THEN NULL; END; END $$");
      for (String[] f : SHADOW_FUNCTIONS) {
        s.execute(shadow(f[0], f[0], f[1], f[2], f[3]));
      }
      int n = 0;
      for (String[] o : SHADOW_OPERATORS) {
        String function = "hijacked_operator_" + n++;
        s.execute(shadow(function, o[0], o[1] + ", " + o[2], o[3], o[4]));
        s.execute(
            "CREATE OPERATOR public."
                + o[0]
                + " (LEFTARG = "
                + o[1]
                + ", RIGHTARG = "
                + o[2]
                + ", FUNCTION = public."
                + function
                + ")");
      }
      s.execute("RESET ROLE");
    }
  }

  private static String shadow(
      String name, String label, String args, String result, String builtin) {
    return "CREATE FUNCTION public."
        + name
        + "("
        + args
        + ") RETURNS "
        + result
        + " LANGUAGE plpgsql SET search_path = pg_catalog AS $$ BEGIN"
        + " PERFORM public.hijacked('"
        + label
        + "("
        + args
        + ")'); "
        + ("void".equals(result) ? "PERFORM " + builtin + "; RETURN;" : "RETURN " + builtin + ";")
        + " END $$";
  }

  @AfterAll
  static void dropTheAttacker() throws SQLException {
    if (attacker == null) {
      return;
    }
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("DROP OWNED BY " + attacker);
      s.execute("DROP ROLE " + attacker);
    }
  }

  @Test
  void a_superuser_installs_and_uses_both_apis_without_running_any_planted_object()
      throws SQLException {
    try (Connection victim = db.connect();
        Statement s = victim.createStatement()) {
      s.execute("SET search_path = public, pg_catalog");
      install(victim);
      useEveryKindOfInbox(s);
      useTheMailroomSchema(s);
      install(victim); // the upgrade path too

      assertThat(strings(s, "SELECT called FROM public.hijack_log")).isEmpty();
      assertAttackerHasNoPrivilege();

      // The trap is armed: the same session calling one unpinned function runs the attacker's
      // now().
      s.execute(
          "CREATE FUNCTION pg_temp.unpinned_probe() RETURNS timestamptz LANGUAGE plpgsql"
              + " AS $$ BEGIN RETURN now(); END $$");
      s.execute("SELECT pg_temp.unpinned_probe()");
      assertThat(strings(s, "SELECT called FROM public.hijack_log")).containsExactly("now()");
    }
  }

  private static void install(Connection victim) {
    Handle h = Jdbi.open(victim);
    SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT);
    SqlScripts.install(h, SchemaInstaller.MAILROOM_INSTALL_SCRIPT);
  }

  /** Only schema-qualified calls and literals: the statements themselves resolve no operator. */
  private static void useEveryKindOfInbox(Statement s) throws SQLException {
    s.execute("SELECT inbox.create_inbox('h_plain', p_max_retries => 2)");
    s.execute("SELECT inbox.create_inbox('h_ordered')");
    s.execute("SELECT inbox.enable_inbox_ordering('h_ordered', 'aggregate_id', 'seq')");
    s.execute("SELECT inbox.create_inbox('h_priority')");
    s.execute("SELECT inbox.enable_inbox_priority('h_priority', 'event_type', '{\"u\": 1}')");
    s.execute("SELECT inbox.create_inbox('h_parts')");
    s.execute(
        "CREATE TABLE public.h_events (id bigint PRIMARY KEY, kind text NOT NULL,"
            + " done_at timestamptz, arrived timestamptz NOT NULL DEFAULT pg_catalog.now(),"
            + " attempts int, last_error text)");
    s.execute(
        "SELECT inbox.enable_inbox_tracking('h_tracked', 'public.h_events', 'id', 'done_at',"
            + " 'kind', 'arrived', NULL, 'attempts', 'last_error', p_max_retries => 2)");
    for (String inbox : new String[] {"h_plain", "h_ordered", "h_priority", "h_parts"}) {
      s.execute(
          "INSERT INTO inbox."
              + inbox
              + " (event_id, event_type, aggregate_id, payload) VALUES"
              + " ('a', 'u', 'x', '{\"n\": 1}'), ('b', 't', 'x', '{}'), ('c', 't', 'y', NULL)"
              + " ON CONFLICT (event_id) DO NOTHING");
      s.execute("SELECT inbox.count_waiting('" + inbox + "', 10)");
      s.execute("BEGIN");
      assertThat(strings(s, "SELECT event_id FROM inbox.claim_" + inbox + "(10)")).isNotEmpty();
      s.execute("SELECT inbox.mark_failed('" + inbox + "', 'a', 'boom', interval '0')");
      s.execute(
          "SELECT * FROM inbox.record_failures('"
              + inbox
              + "', ARRAY['b'], ARRAY['bad'], ARRAY[NULL::interval], ARRAY[true])");
      s.execute("COMMIT");
      s.execute("SELECT inbox.mark_dead('" + inbox + "', 'a', 'dead')");
      s.execute("SELECT inbox.replay_inbox_messages('" + inbox + "', ARRAY['a', 'b'])");
      s.execute("SELECT inbox.replay_inbox_messages('" + inbox + "', p_event_type => 't')");
      s.execute("SELECT inbox.mark_processed('" + inbox + "', 'a')");
      assertThat(strings(s, "SELECT inbox.inbox_health('" + inbox + "')::text"))
          .singleElement()
          .asString()
          .contains("\"status\"");
      s.execute("SELECT inbox.inbox_status('" + inbox + "')");
      s.execute("SELECT * FROM inbox.pending_gauges('" + inbox + "')");
      s.execute("SELECT * FROM inbox.inbox_messages('" + inbox + "', 'pending')");
      s.execute("SELECT * FROM inbox." + inbox + "_pending");
      s.execute("SELECT * FROM inbox." + inbox + "_dlq");
      s.execute("SELECT * FROM inbox." + inbox + "_stats");
      s.execute("SELECT inbox.purge_inbox('" + inbox + "')");
    }
    s.execute("SELECT * FROM inbox.inbox_ordering_gaps('h_ordered')");
    s.execute("SELECT * FROM inbox.next_h_ordered");
    s.execute("SELECT inbox.worker_heartbeat('h_parts', 'w1', 4, interval '1 minute')");
    s.execute("BEGIN");
    s.execute("SELECT inbox.lease_guard('h_parts', 'w1', ARRAY[0, 1, 2, 3])");
    s.execute("SELECT * FROM inbox.claim_h_parts(10, inbox.inbox_partition_buckets(0, 4))");
    s.execute("COMMIT");
    s.execute("SELECT inbox.worker_leave('h_parts', 'w1')");
    s.execute("SELECT inbox.inbox_is_my_partition('h_parts', 'x', 0, 4)");

    s.execute(
        "INSERT INTO public.h_events (id, kind, attempts) VALUES (1, 'k', NULL), (2, 'k', 1)");
    s.execute("SELECT inbox.mark_failed('h_tracked', '2', 'no')");
    s.execute("SELECT inbox.replay_inbox_messages('h_tracked', ARRAY['2'])");
    s.execute("SELECT inbox.mark_processed('h_tracked', '1')");
    s.execute("SELECT inbox.inbox_health('h_tracked')");
    s.execute("SELECT inbox.inbox_status('h_tracked')");
    s.execute("SELECT * FROM inbox.inbox_messages('h_tracked', 'pending')");
    // A tracked table without retry columns: claim, failures and replay through the side table.
    s.execute(
        "CREATE TABLE public.h_bare (id bigint PRIMARY KEY, kind text NOT NULL, agg text,"
            + " done_at timestamptz)");
    s.execute(
        "SELECT inbox.enable_inbox_tracking('h_bare', 'public.h_bare', 'id', 'done_at', 'kind',"
            + " p_max_retries => 2, p_notify => true)");
    s.execute("SELECT inbox.enable_inbox_ordering('h_bare', 'agg', 'id')");
    s.execute("SELECT inbox.enable_inbox_priority('h_bare', 'kind', '{\"k\": 1}')");
    s.execute("INSERT INTO public.h_bare (id, kind, agg) VALUES (1, 'k', 'x'), (2, 'k', 'y')");
    s.execute("SELECT inbox.count_waiting('h_bare', 10)");
    s.execute("BEGIN");
    assertThat(strings(s, "SELECT event_id FROM inbox.claim_h_bare(10, ARRAY[0, 1])")).isEmpty();
    assertThat(strings(s, "SELECT event_id FROM inbox.claim_h_bare(10)")).hasSize(2);
    s.execute(
        "SELECT * FROM inbox.record_failures('h_bare', ARRAY['1', '2'], ARRAY['bad', 'bad'],"
            + " ARRAY[NULL::interval, NULL], ARRAY[true, false])");
    s.execute("SELECT inbox.release_claimed('h_bare', ARRAY['2'])");
    s.execute("COMMIT");
    s.execute("SELECT inbox.mark_failed('h_bare', '2', 'no', interval '0')");
    s.execute("SELECT * FROM inbox.inbox_dlq_groups('h_bare')");
    s.execute("SELECT * FROM inbox.inbox_dead_letters('h_bare')");
    s.execute("SELECT * FROM inbox.inbox_blocked_aggregates('h_bare')");
    s.execute("SELECT inbox.replay_dlq_group('h_bare', 'k', NULL)");
    s.execute("SELECT inbox.replay_inbox_messages('h_bare', ARRAY['1', '2'])");
    s.execute("SELECT inbox.mark_dead('h_bare', '1', 'dead')");
    s.execute("SELECT inbox.discard_dead_letters('h_bare', ARRAY['1'])");
    s.execute("SELECT inbox.inbox_status('h_bare')");
    s.execute("SELECT * FROM inbox.pending_gauges('h_bare')");
    s.execute("SELECT inbox.purge_inbox('h_bare')");
    s.execute("SELECT inbox.drop_inbox('h_bare')");

    s.execute("SELECT inbox.disable_inbox_ordering('h_ordered')");
    s.execute("SELECT inbox.drop_inbox('h_parts', p_cascade => true)");
    s.execute("SELECT inbox.drop_inbox('h_tracked')");
  }

  private static void useTheMailroomSchema(Statement s) throws SQLException {
    s.execute("INSERT INTO public.accounts (email, login) VALUES ('a@x.test', 'alice')");
    s.execute("UPDATE public.tokens SET consumed_at = 1");
    s.execute("UPDATE public.accounts SET status = 'suspended'");
    s.execute("UPDATE public.accounts SET status = 'active'");
    s.execute("SELECT mailroom.request_password_recovery('alice')");
    s.execute("SELECT mailroom.setup_inbox()");
    assertThat(strings(s, "SELECT event_id FROM inbox.mailroom_pending"))
        .containsExactlyInAnyOrder("token-1", "token-2");
  }

  private static void assertAttackerHasNoPrivilege() throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      assertThat(
              bool(
                  s,
                  "SELECT rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls OR rolreplication"
                      + " FROM pg_roles WHERE rolname = '"
                      + attacker
                      + "'"))
          .isFalse();
      assertThat(
              strings(
                  s,
                  "SELECT roleid::regrole::text FROM pg_auth_members WHERE member = '"
                      + attacker
                      + "'::regrole"))
          .isEmpty();
    }
  }

  private static boolean bool(Statement s, String query) throws SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static List<String> strings(Statement s, String query) throws SQLException {
    List<String> values = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }
}
