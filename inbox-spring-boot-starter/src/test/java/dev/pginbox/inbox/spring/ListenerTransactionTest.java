package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

class ListenerTransactionTest extends SpringInboxTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Autowired InboxTemplate inboxes;
  @Autowired PostgresInboxManager manager;
  @Autowired JdbcTemplate jdbc;
  @Autowired TransactionTemplate transactions;
  @Autowired ApplicationContext context;

  private Map<String, Object> row(String inbox, String eventId) {
    return jdbc.queryForMap(
        "SELECT processed_at IS NOT NULL AS processed, retry_count, error FROM inbox."
            + inbox
            + " WHERE event_id = ?",
        eventId);
  }

  private void awaitProcessed(String inbox, String eventId) {
    await().atMost(WAIT).until(() -> row(inbox, eventId).get("processed").equals(true));
  }

  private InboxMessage awaitDeadLetter(String inbox, String eventId) {
    return await()
        .atMost(WAIT)
        .until(
            () ->
                manager.inbox(inbox).deadLetters(100).stream()
                    .filter(m -> m.eventId().equals(eventId))
                    .findFirst()
                    .orElse(null),
            m -> m != null);
  }

  @Test
  void a_listener_gets_its_payload_as_a_record_and_its_jdbc_writes_commit() {
    jdbc.update("INSERT INTO stock (sku, quantity) VALUES ('SKU-1', 10)");

    inboxes.send(
        "orders",
        "ord-1",
        "order.placed",
        "ORD-1",
        new TestApplication.OrderPlaced("ORD-1", "SKU-1", 3));

    awaitProcessed("orders", "ord-1");
    assertThat(jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = 'SKU-1'", Integer.class))
        .isEqualTo(7);
    assertThat(row("orders", "ord-1").get("error")).isNull();
  }

  @Test
  void a_listener_that_fails_after_writing_leaves_none_of_its_writes() {
    inboxes.send(
        "orders",
        "ord-fail",
        "order.placed",
        "ORD-F",
        new TestApplication.OrderPlaced("ORD-F", "FAIL-AFTER-WRITE", 1));

    InboxMessage dead = awaitDeadLetter("orders", "ord-fail");

    assertThat(dead.retryCount()).isEqualTo(2); // inbox.inboxes.orders.max-retries=2: two attempts
    assertThat(dead.error()).contains("failed after writing stock for ord-fail");
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM stock WHERE sku = 'FAIL-AFTER-WRITE'", Integer.class))
        .isZero();
  }

  @Test
  void a_payload_that_does_not_bind_is_a_dead_letter_at_once_with_the_reason() {
    inboxes.send(
        "orders", NewMessage.of("ord-bad", "order.placed", "ORD-B", "{\"quantity\": \"many\"}"));

    InboxMessage dead = awaitDeadLetter("orders", "ord-bad");

    // The listener never ran: its own failure would carry another error.
    assertThat(dead.error())
        .startsWith("payload does not bind to " + TestApplication.OrderPlaced.class.getName());
  }

  @Test
  void a_failed_transactional_method_fails_the_message_even_when_the_listener_swallows_it() {
    inboxes.send("notes", NewMessage.of("note-ok", "fine", "N-1", null));
    inboxes.send("notes", NewMessage.of("note-reject", "reject", "N-2", null));

    awaitProcessed("notes", "note-ok");
    InboxMessage dead = awaitDeadLetter("notes", "note-reject");

    assertThat(dead.error()).contains("rollback-only");
    assertThat(jdbc.queryForList("SELECT event_id FROM notes", String.class))
        .containsExactly("note-ok");
  }

  @Test
  void a_batch_listener_writes_through_jdbc_client_in_the_batchs_transaction() {
    List<NewMessage> batch =
        List.of(
            NewMessage.of("audit-1", "login", "U-1", null),
            NewMessage.of("audit-2", "logout", "U-1", null),
            NewMessage.of("audit-3", "login", "U-2", null));
    assertThat(inboxes.sendAll("audit", batch)).isEqualTo(3);

    await()
        .atMost(WAIT)
        .until(() -> jdbc.queryForObject("SELECT count(*) FROM audit_log", Integer.class) == 3);
    for (NewMessage m : batch) {
      awaitProcessed("audit", m.eventId());
    }
  }

  @Test
  void a_handler_bean_with_a_qualifier_consumes_its_inbox() {
    inboxes.send("pings", NewMessage.of("ping-1", "ping", null, null));

    awaitProcessed("pings", "ping-1");
    assertThat(jdbc.queryForList("SELECT event_id FROM pings", String.class)).contains("ping-1");
  }

  @Test
  void sending_inside_a_transaction_commits_and_rolls_back_with_it() {
    transactions.executeWithoutResult(
        status -> {
          inboxes.send("idle", NewMessage.of("idle-rolled-back", "t", null, null));
          jdbc.update("INSERT INTO stock (sku, quantity) VALUES ('ROLLED-BACK', 1)");
          status.setRollbackOnly();
        });
    transactions.executeWithoutResult(
        status -> inboxes.send("idle", NewMessage.of("idle-committed", "t", null, null)));

    assertThat(manager.inbox("idle").pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("idle-committed");
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM stock WHERE sku = 'ROLLED-BACK'", Integer.class))
        .isZero();
  }

  @Test
  void every_inbox_with_a_handler_has_a_running_worker_bean() {
    Map<String, InboxWorkerLifecycle> workers = context.getBeansOfType(InboxWorkerLifecycle.class);

    assertThat(workers.keySet())
        .containsExactlyInAnyOrder(
            "inboxWorker.orders", "inboxWorker.audit", "inboxWorker.notes", "inboxWorker.pings");
    assertThat(workers.values()).allMatch(InboxWorkerLifecycle::isRunning);
    assertThat(workers.get("inboxWorker.audit").options().batchSize()).isEqualTo(50);
    assertThat(workers.get("inboxWorker.audit").options().maxBatchBytes()).isEqualTo(2L << 20);
    assertThat(workers.get("inboxWorker.orders").options().maxBatchBytes())
        .isEqualTo(WorkerOptions.DEFAULT_MAX_BATCH_BYTES);
    assertThat(workers.get("inboxWorker.audit").options().claimAhead()).isTrue();
    assertThat(workers.get("inboxWorker.orders").options().claimAhead()).isFalse();
    assertThat(manager.exists("idle")).isTrue(); // created from properties, no worker
  }
}
