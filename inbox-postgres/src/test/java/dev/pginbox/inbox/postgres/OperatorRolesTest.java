package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator views and the audit trail under the role model: who may read, act, and log. */
class OperatorRolesTest extends InboxTestSupport {

  static Login consumer;
  static Login operator;
  static Login reader;

  @BeforeAll
  static void rolesAndInbox() throws SQLException {
    PostgresInbox inbox = manager.createInbox("watched");
    manager.enableOrdering("watched");
    inbox.send(NewMessage.of("w-1", "t", "agg", "{}"));
    inbox.send(NewMessage.of("w-2", "t", "agg", "{}"));
    sql("UPDATE inbox.watched SET retry_count = 3, error = 'down 42' WHERE event_id = 'w-1'");
    LoginRoles roles = new LoginRoles(database);
    consumer = roles.create("ops_consumer", "inbox_consumer");
    operator = roles.create("ops_operator", "inbox_operator");
    reader = roles.create("ops_reader", "inbox_reader");
  }

  @Test
  void an_operator_reads_every_view_replays_a_group_and_the_audit_names_login_and_actor()
      throws SQLException {
    Inbox inbox = PostgresInboxManager.create(operator.dataSource()).inbox("watched");
    var ops = inbox.operations().asActor("carol");
    assertThat(ops.blockedAggregates(10)).hasSize(1);
    assertThat(ops.partitionLag()).isNotEmpty();
    assertThat(ops.workers()).isNotNull();
    assertThat(ops.dlqGroups(10)).hasSize(1);
    assertThat(ops.message("w-1")).isPresent();
    assertThat(inbox.health().blockedAggregates()).isEqualTo(1);

    assertThat(ops.replay(DeadLetterSelection.group("t", "down <n>"))).isEqualTo(1);
    OperatorLogEntry entry = ops.auditLog(1, null).get(0);
    assertThat(entry.action()).isEqualTo("replay");
    assertThat(entry.role()).isEqualTo(operator.name());
    assertThat(entry.actor()).isEqualTo("carol");

    // The trail is written only through the logging function: no forging, no erasing.
    operator.isRefused(
        "INSERT INTO inbox.operator_log (role_name, action) VALUES ('someone', 'replay')");
    operator.isRefused("DELETE FROM inbox.operator_log");
    operator.isRefused("UPDATE inbox.operator_log SET actor = 'nobody'");
  }

  @Test
  void a_reader_reads_the_views_and_the_audit_but_acts_on_nothing() throws SQLException {
    assertThat(reader.count("SELECT count(*) FROM inbox.inbox_operator_log('watched', 10)"))
        .isGreaterThanOrEqualTo(1);
    assertThat(reader.count("SELECT count(*) FROM inbox.inbox_workers('watched')")).isNotNegative();
    assertThat(reader.count("SELECT count(*) FROM inbox.inbox_partition_lag('watched')"))
        .isEqualTo(1);
    reader.isRefused("SELECT inbox.replay_dlq_group('watched', 't', 'down <n>')");
    reader.isRefused("SELECT inbox.discard_dead_letters('watched', ARRAY['w-1'])");
  }

  @Test
  void a_role_given_one_inbox_reads_the_audit_trail_of_that_inbox_only() throws SQLException {
    manager.createInbox("audit_mine");
    manager.createInbox("audit_theirs");
    manager.createInbox("audit_gone");
    manager.dropInbox("audit_gone", true);
    Login perInbox = new LoginRoles(database).create("ops_one_inbox");
    sql("SELECT inbox.grant_inbox('audit_mine', ?, 'operator')", perInbox.name());

    assertThat(
            perInbox.count(
                "SELECT count(*) FROM inbox.inbox_operator_log(NULL, 1000) WHERE inbox_name = 'audit_mine'"))
        .isPositive();
    assertThat(
            perInbox.count(
                "SELECT count(*) FROM inbox.operator_log WHERE inbox_name IS DISTINCT FROM 'audit_mine'"))
        .isZero();
    // The group roles get every inbox, the dropped ones too.
    for (Login group : new Login[] {operator, reader}) {
      assertThat(
              group.count(
                  "SELECT count(DISTINCT inbox_name) FROM inbox.operator_log"
                      + " WHERE inbox_name IN ('audit_mine', 'audit_theirs', 'audit_gone')"))
          .isEqualTo(3);
    }
  }

  @Test
  void a_consumer_announces_its_workers() throws SQLException {
    consumer.execute(
        "SELECT inbox.worker_announce('watched', 'c-1', '{\"assignment\": \"all\"}')",
        "SELECT inbox.worker_stopped('watched', 'c-1')");
    assertThat(count("SELECT count(*) FROM inbox.inbox_worker_registry WHERE worker_id = 'c-1'"))
        .isEqualTo(1);
  }
}
