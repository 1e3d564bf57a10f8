package dev.pginbox.inbox.testing;

// The example of docs/testing.md (its code, formatted, under another class name): it must keep
// working.

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@InboxTest
class DocsTestingExampleTest {

  @Test
  void takes_stock_retries_when_short_and_gives_up_on_unknown_articles(
      InboxManager manager, InboxProbe probe, DataSource dataSource) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.createStatement()
          .execute(
              "CREATE TABLE stock (sku text PRIMARY KEY, quantity int NOT NULL);"
                  + "INSERT INTO stock VALUES ('MUG-1', 1)");
    }
    Inbox orders = manager.createInbox("orders", InboxOptions.builder().maxRetries(2).build());
    orders.sendAll(
        List.of(
            NewMessage.of("o-1", "order.placed", "MUG-1", "{\"quantity\": 1}"),
            NewMessage.of("o-2", "order.placed", "MUG-1", "{\"quantity\": 1}"),
            NewMessage.of("o-3", "order.placed", "NO-SUCH", "{\"quantity\": 1}")));

    RecordingHandler handler =
        new RecordingHandler(
            (message, tx) -> {
              Connection c = tx.unwrap(Connection.class); // the claim's transaction
              var update =
                  c.prepareStatement(
                      "UPDATE stock SET quantity = quantity - 1 WHERE sku = ? AND quantity > 0");
              update.setString(1, message.aggregateId());
              if (update.executeUpdate() == 1) {
                return Outcome.processed();
              }
              var known = c.prepareStatement("SELECT 1 FROM stock WHERE sku = ?");
              known.setString(1, message.aggregateId());
              return known.executeQuery().next()
                  ? Outcome.retry("out of stock")
                  : Outcome.dead("unknown sku " + message.aggregateId());
            });
    InboxWorker worker =
        PostgresInboxWorker.builder(
                dataSource, WorkerOptions.builder("orders").batchSize(10).build())
            .handler(handler)
            .build(); // never started: the probe drives it

    probe.drain(worker); // everything due now, in this thread

    probe.message("orders", "o-1").assertProcessed();
    probe.message("orders", "o-2").assertRetrying(1); // one failed attempt, backing off
    probe.message("orders", "o-3").assertDeadLetter("unknown sku NO-SUCH");
    handler.assertHandledInOrder("o-1", "o-2", "o-3");

    probe.drainIncludingRetries(worker, "orders"); // retries without waiting out the backoff

    probe.message("orders", "o-2").assertDeadLetter("out of stock");
    assertThat(orders.deadLetters(10)).hasSize(2);
  }
}
