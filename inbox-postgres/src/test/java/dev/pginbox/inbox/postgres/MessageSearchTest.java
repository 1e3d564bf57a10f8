package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.MessageDetail;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** inbox.find_messages: its three keys, its bounds, and who may search. */
class MessageSearchTest extends InboxTestSupport {

  private static InboxOperations ops;

  /** Twelve messages of three customers, c0 to c2 (customer = n % 3); m1 processed, m2 dead. */
  @BeforeAll
  static void inbox() {
    PostgresInbox inbox = manager.createInbox("searched");
    manager.enableOrdering("searched");
    for (int n = 0; n < 12; n++) {
      inbox.send(
          NewMessage.of(
              "m" + n,
              "order.placed",
              "c" + (n % 3),
              "{\"customer\": {\"id\": "
                  + (n % 3)
                  + "}, \"n\": "
                  + n
                  + ", \"note\": \"n"
                  + n
                  + "\"}"));
    }
    sql("UPDATE inbox.searched SET processed_at = now() WHERE event_id = 'm1'");
    sql("UPDATE inbox.searched SET retry_count = 3, error = 'down' WHERE event_id = 'm2'");
    ops = inbox.operations();
  }

  private static List<String> ids(List<MessageDetail> found) {
    return found.stream().map(MessageDetail::eventId).toList();
  }

  @Test
  void an_event_id_finds_its_message_in_any_state() {
    assertThat(ops.findMessages("m1", null, null, 10))
        .singleElement()
        .satisfies(m -> assertThat(m.state()).isEqualTo("processed"));
    assertThat(ops.findMessages("m2", null, null, 10))
        .extracting(MessageDetail::state)
        .containsExactly("dead");
    assertThat(ops.findMessages("nope", null, null, 10)).isEmpty();
  }

  @Test
  void an_aggregate_id_finds_its_processed_and_waiting_messages_oldest_first() {
    assertThat(ids(ops.findMessages(null, "c1", null, 10)))
        .containsExactly("m1", "m4", "m7", "m10");
    assertThat(ops.findMessages(null, "c1", null, 2)).hasSize(2);
  }

  @Test
  void a_payload_match_is_a_key_path_with_a_json_value_or_a_json_object() {
    assertThat(ids(ops.findMessages(null, null, "customer.id = 2", 10)))
        .containsExactly("m2", "m5", "m8", "m11");
    assertThat(ids(ops.findMessages(null, null, "{\"n\": 7}", 10))).containsExactly("m7");
    // A value that is no JSON is a string; a quoted number is a string, not the number.
    assertThat(ids(ops.findMessages(null, null, "note = n3", 10))).containsExactly("m3");
    assertThat(ops.findMessages(null, null, "n = \"3\"", 10)).isEmpty();
    // Keys given together must all match.
    assertThat(ids(ops.findMessages(null, "c2", "n = 5", 10))).containsExactly("m5");
    assertThat(ops.findMessages("m5", "c1", null, 10)).isEmpty();
  }

  @Test
  void input_the_search_cannot_use_is_refused_with_the_reason() {
    assertThatThrownBy(() -> ops.findMessages(null, null, null, 10))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("needs an event id, an aggregate id or a payload match");
    assertThatThrownBy(() -> ops.findMessages(" ", "", null, 10))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThatThrownBy(() -> ops.findMessages("m1", null, null, 1001))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThatThrownBy(() -> ops.findMessages(null, null, "{\"customer\": ", 10))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> ops.findMessages(null, null, "customer", 10))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("key.path = value");
    assertThatThrownBy(() -> ops.findMessages(null, null, "a..b = 1", 10))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("key path");
    assertThatThrownBy(() -> ops.findMessages("x".repeat(5000), null, null, 10))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("at most 4096 characters");
    assertThatThrownBy(
            () -> ops.findMessages(null, null, "{\"a\": \"" + "x".repeat(9000) + "\"}", 10))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("at most 8192 characters");
    // Quotes and markup are values like any other.
    assertThat(ops.findMessages("'; DROP TABLE inbox.searched; --", "<b>\"", "x = '\"<", 10))
        .isEmpty();
    assertThat(count("SELECT count(*) FROM inbox.searched")).isEqualTo(12);
  }

  /**
   * Without an index the search looks at the first 100,000 rows only: a processed message stored
   * after them is not found by aggregate or payload, until an index is there.
   */
  @Test
  void without_an_index_the_scan_stops_at_100000_rows_and_an_index_finds_the_rest() {
    PostgresInbox big = manager.createInbox("big");
    sql(
        "INSERT INTO inbox.big (event_id, aggregate_id, payload, processed_at)"
            + " SELECT 'b' || i, 'agg', '{\"k\": 1}', now() FROM generate_series(1, 100000) i");
    big.send(NewMessage.of("late", "t", "late-agg", "{\"k\": 2}"));
    sql("UPDATE inbox.big SET processed_at = now() WHERE event_id = 'late'");
    InboxOperations bigOps = big.operations();

    assertThat(bigOps.findMessages("late", null, null, 10)).hasSize(1);
    assertThat(bigOps.findMessages(null, "late-agg", null, 10)).isEmpty();
    assertThat(bigOps.findMessages(null, null, "k = 2", 10)).isEmpty();
    assertThat(bigOps.findMessages(null, "agg", null, 1000)).hasSize(1000);

    sql("CREATE INDEX big_aggregate_idx ON inbox.big (aggregate_id)");
    sql("CREATE INDEX big_payload_gin ON inbox.big USING gin (payload jsonb_path_ops)");
    assertThat(ids(bigOps.findMessages(null, "late-agg", null, 10))).containsExactly("late");
    assertThat(ids(bigOps.findMessages(null, null, "k = 2", 10))).containsExactly("late");
  }

  @Test
  void operators_and_readers_search_producers_and_roles_of_other_inboxes_may_not()
      throws SQLException {
    manager.createInbox("elsewhere");
    LoginRoles roles = new LoginRoles(database);
    Login operator = roles.create("search_operator", "inbox_operator");
    Login reader = roles.create("search_reader", "inbox_reader");
    Login producer = roles.create("search_producer", "inbox_producer");
    Login other = roles.create("search_other");
    sql("SELECT inbox.grant_inbox('elsewhere', ?, 'operator')", other.name());

    String byAggregate =
        "SELECT count(*) FROM inbox.find_messages('searched', p_aggregate_id => 'c0')";
    assertThat(operator.count(byAggregate)).isEqualTo(4);
    assertThat(reader.count(byAggregate)).isEqualTo(4);
    assertThat(
            PostgresInboxManager.create(reader.dataSource())
                .inbox("searched")
                .operations()
                .findMessages(null, null, "customer.id = 0", 10))
        .hasSize(4);
    producer.isRefused(byAggregate);
    producer.isRefused("SELECT count(*) FROM inbox.find_messages('searched', 'm1')");
    other.isRefused(byAggregate);
  }
}
