package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.NewMessage;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad or oversized input gets a clear error, and what is stored or reported stays bounded. */
class InputLimitsTest extends InboxTestSupport {

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void a_claim_without_a_positive_limit_is_an_error(boolean ordered) {
    String name = ordered ? "lim_ordered" : "lim_plain";
    PostgresInbox inbox = manager.createInbox(name);
    if (ordered) {
      manager.enableOrdering(name);
    }
    inbox.send(NewMessage.of("m1", "t", "a", null));
    for (String limit : new String[] {"NULL", "0", "-1"}) {
      assertThatThrownBy(
              () ->
                  jdbi.useTransaction(
                      h ->
                          h.createQuery("SELECT * FROM inbox.claim_" + name + "(" + limit + ")")
                              .mapToMap()
                              .list()))
          .as(limit)
          .isInstanceOf(UnableToExecuteStatementException.class)
          .hasMessageContaining("claim limit must be at least 1")
          .satisfies(e -> assertThat(sqlState(e)).isEqualTo("22023"));
    }
    assertThat(count("SELECT count(*) FROM inbox." + name + "_pending")).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "INSERT INTO inbox.lim_empty_insert (event_id, event_type) VALUES ('', 't')",
        "SELECT inbox.send_lim_empty_send(ARRAY['ok', ''], NULL, NULL, NULL, NULL, NULL)",
      })
  void an_empty_event_id_is_refused_and_nothing_of_its_batch_stored(String statement) {
    String name = statement.contains("INSERT") ? "lim_empty_insert" : "lim_empty_send";
    manager.createInbox(name);
    assertThatThrownBy(() -> sql(statement))
        .hasMessageContaining("an event id must not be empty")
        .satisfies(e -> assertThat(sqlState(e)).isEqualTo("22023"));
    assertThat(count("SELECT count(*) FROM inbox." + name)).isZero();
  }

  @Test
  void stored_error_texts_are_capped_at_4000_characters() {
    manager.createInbox(
        "lim_errors", dev.pginbox.inbox.InboxOptions.builder().maxRetries(5).build());
    sql("INSERT INTO inbox.lim_errors (event_id) VALUES ('failed'), ('batch'), ('dead')");
    String huge = "x".repeat(10_000);
    sql("SELECT inbox.mark_failed('lim_errors', 'failed', ?)", huge);
    sql(
        "SELECT * FROM inbox.record_failures('lim_errors', ARRAY['batch'], ARRAY[?],"
            + " ARRAY[NULL::interval], ARRAY[false])",
        huge);
    sql("SELECT inbox.mark_dead('lim_errors', 'dead', ?)", huge);
    assertThat(strings("SELECT length(error)::text FROM inbox.lim_errors ORDER BY event_id"))
        .containsExactly("4000", "4000", "4000");
  }

  @Test
  void the_inbox_catalog_cannot_be_tracked() {
    for (String table :
        List.of("inbox.inbox_workers", "inbox.inbox_config", "pg_catalog.pg_class")) {
      assertThatThrownBy(
              () ->
                  sql(
                      "SELECT inbox.enable_inbox_tracking('lim_catalog', ?, 'inbox_name',"
                          + " 'heartbeat_at', 'worker_id', NULL, NULL, NULL, NULL)",
                      table))
          .as(table)
          .hasMessageContaining("is a catalog table and cannot be tracked")
          .satisfies(e -> assertThat(sqlState(e)).isEqualTo("22023"));
    }
    assertThat(manager.exists("lim_catalog")).isFalse();
  }

  @Test
  void a_payload_that_is_not_json_is_reported_without_its_content() {
    PostgresInbox inbox = manager.createInbox("lim_json");
    assertThatThrownBy(
            () -> inbox.send(NewMessage.of("e1", "t", "a", "{\"card\": 4111111111111111 oops")))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .satisfies(
            e -> {
              assertThat(((InboxException) e).sqlState()).contains("22P02");
              List<String> messages = new ArrayList<>();
              for (Throwable t = e; t != null; t = t.getCause()) {
                messages.add(String.valueOf(t.getMessage()));
                messages.add(t.toString());
              }
              assertThat(messages).allSatisfy(m -> assertThat(m).doesNotContain("4111", "oops"));
              assertThat(e.getMessage()).contains("invalid input syntax for type json");
            });
  }

  @Test
  void a_payload_over_the_inbox_maximum_is_refused_with_a_clear_error() {
    PostgresInbox inbox = manager.createInbox("lim_size");
    assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgname = 'lim_size_max_payload'"))
        .isZero();
    sql("SELECT inbox.set_max_payload_size('lim_size', 100)");
    String small = "{\"n\": 1}";
    String big = "{\"secret\": \"" + "s".repeat(200) + "\"}";

    assertThat(inbox.send(NewMessage.of("small", "t", "a", small))).isTrue();
    assertThatThrownBy(() -> inbox.send(NewMessage.of("big", "t", "a", big)))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("payload of message 'big' is")
        .hasMessageContaining("more than the 100 bytes inbox 'lim_size' accepts")
        .hasMessageNotContaining("sss")
        .satisfies(e -> assertThat(((InboxException) e).sqlState()).contains("54000"));
    assertThat(strings("SELECT event_id FROM inbox.lim_size")).containsExactly("small");

    manager.install(); // a re-install keeps the limit
    assertThatThrownBy(() -> inbox.send(NewMessage.of("big", "t", "a", big)))
        .isInstanceOf(InvalidInboxArgumentException.class);
    sql("SELECT inbox.set_max_payload_size('lim_size', NULL)");
    assertThat(inbox.send(NewMessage.of("big", "t", "a", big))).isTrue();
    assertThat(count("SELECT count(*) FROM pg_trigger WHERE tgname = 'lim_size_max_payload'"))
        .isZero();
  }
}
