package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a role granted one job cannot do beyond it: write the audit log itself, rewrite a message's
 * payload, or reach another inbox's catalog row (move its retention watermark, hold its row, block
 * create_inbox). Each was possible through a grant meant for something else.
 */
class TamperingRolesTest extends InboxTestSupport {

  static Login producer;
  static Login operator;
  static Login consumerOfA;

  @BeforeAll
  static void rolesAndInboxes() throws SQLException {
    InboxOptions retained = InboxOptions.builder().dedupRetention(Duration.ofDays(30)).build();
    manager.createInbox("tamper_a", retained);
    manager.createInbox("tamper_b", retained);
    LoginRoles roles = new LoginRoles(database);
    producer = roles.create("tamper_producer", "inbox_producer");
    operator = roles.create("tamper_operator", "inbox_operator");
    consumerOfA = roles.create("tamper_consumer_a");
    sql("SELECT inbox.grant_inbox('tamper_a', '" + consumerOfA.name() + "', 'consumer')");
  }

  @Test
  void no_role_writes_the_audit_log_but_the_audited_functions() throws SQLException {
    long before = count("SELECT count(*) FROM inbox.operator_log");
    String forged = "SELECT inbox.log_operator_action('replay', 'tamper_b', '{}', 42)";
    operator.isRefused(forged);
    producer.isRefused(forged);
    consumerOfA.isRefused(forged);
    operator.isRefused(
        "DO $$ BEGIN PERFORM inbox.log_operator_action('purge', 'tamper_b', '{}', 1); END $$");
    operator.isRefused(
        "CREATE FUNCTION pg_temp.forge() RETURNS void LANGUAGE plpgsql AS "
            + "$$ BEGIN PERFORM inbox.log_operator_action('replay', 'tamper_b', '{}', 7); END $$",
        "SELECT pg_temp.forge()");
    assertThat(count("SELECT count(*) FROM inbox.operator_log")).isEqualTo(before);

    // The audited function still writes, naming the role that really acted.
    operator.execute("SELECT inbox.replay_inbox_messages('tamper_b', ARRAY['none'])");
    assertThat(
            strings(
                "SELECT role_name || ' ' || action FROM inbox.operator_log ORDER BY id DESC LIMIT 1"))
        .containsExactly(operator.name() + " replay");
  }

  @Test
  void retention_may_strip_a_payload_but_nobody_but_the_owner_rewrites_one() throws SQLException {
    manager.inbox("tamper_a").send(NewMessage.of("pay-1", "t", "a", "{\"amount\": 10}"));
    manager.inbox("tamper_a").send(NewMessage.of("pay-2", "t", "a", "{\"amount\": 10}"));
    String rewrite =
        "UPDATE inbox.tamper_a SET payload = '{\"amount\": 1000000}' WHERE event_id = 'pay-1'";
    consumerOfA.isRefused(rewrite);
    operator.isRefused(rewrite);
    assertThat(strings("SELECT payload::text FROM inbox.tamper_a WHERE event_id = 'pay-1'"))
        .containsExactly("{\"amount\": 10}");

    consumerOfA.execute("UPDATE inbox.tamper_a SET payload = NULL WHERE event_id = 'pay-2'");
    assertThat(count("SELECT count(*) FROM inbox.tamper_a WHERE payload IS NULL")).isEqualTo(1);
    sql("UPDATE inbox.tamper_a SET payload = '{\"amount\": 11}' WHERE event_id = 'pay-1'");
  }

  @Test
  void a_consumer_of_one_inbox_cannot_move_or_hold_another_inboxes_catalog_row()
      throws SQLException {
    String watermark = "SELECT stripped_until::text FROM inbox.inbox_config WHERE inbox_name = ";
    String before = strings(watermark + "'tamper_b'").get(0);
    consumerOfA.execute(
        "UPDATE inbox.inbox_config SET stripped_until = 'infinity' WHERE inbox_name = 'tamper_b'");
    assertThat(strings(watermark + "'tamper_b'")).containsExactly(before);
    assertThat(
            consumerOfA.count(
                "SELECT count(*) FROM (SELECT 1 FROM inbox.inbox_config "
                    + "WHERE inbox_name = 'tamper_b' FOR NO KEY UPDATE) r"))
        .isZero();
    // Its own inbox's row: retention's watermark and election.
    consumerOfA.execute(
        "UPDATE inbox.inbox_config SET stripped_until = stripped_until WHERE inbox_name = 'tamper_a'",
        "SELECT inbox.try_purge_inbox('tamper_a')");
  }

  @Test
  void a_consumer_holding_its_catalog_row_does_not_block_create_inbox() throws SQLException {
    try (Connection hold = consumerOfA.dataSource().getConnection();
        Statement s = hold.createStatement()) {
      hold.setAutoCommit(false);
      s.execute(
          "UPDATE inbox.inbox_config SET stripped_until = stripped_until WHERE inbox_name = 'tamper_a'");
      s.execute("SELECT 1 FROM inbox.inbox_config WHERE inbox_name = 'tamper_a' FOR UPDATE");
      // Waited for the consumer's transaction before: a lock timeout says it no longer does.
      jdbi.useHandle(
          h -> {
            h.execute("SET lock_timeout = '3s'");
            h.execute("SELECT inbox.create_inbox('tamper_new')");
            h.execute("SELECT inbox.drop_inbox('tamper_new')");
          });
      hold.rollback();
    }
  }
}
