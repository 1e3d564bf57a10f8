package dev.pginbox.examples.orders;

// The Spring example of docs/testing.md, as it is printed there: it must keep working.

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.spring.InboxTemplate;
import dev.pginbox.inbox.spring.InboxWorkerLifecycle;
import dev.pginbox.inbox.testing.InboxProbe;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@SpringBootTest(
    properties = {
      "inbox.start-workers=false", // the test drives the worker
      "example.operator.password=operator-test-password"
    })
class StockListenerTest {

  static final TestDatabase DB = TestPostgres.shared().newDatabase("stock");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry r) {
    r.add("spring.datasource.url", DB::jdbcUrl);
    r.add("spring.datasource.username", DB::user);
    r.add("spring.datasource.password", () -> DB.password() == null ? "" : DB.password());
  }

  @Autowired InboxTemplate inbox;

  @Autowired
  @Qualifier("inboxWorker.orders")
  InboxWorkerLifecycle orders; // built from the @InboxListener, never started

  @Autowired DataSource dataSource;

  @Test
  void takes_stock_once_and_gives_up_on_unknown_articles() {
    inbox.send("orders", "o-1", "order.placed", "MUG-1", new OrderPlaced("o-1", "MUG-1", 1));
    inbox.send("orders", "o-1", "order.placed", "MUG-1", new OrderPlaced("o-1", "MUG-1", 1));
    inbox.send("orders", "o-2", "order.placed", "NO-SUCH", new OrderPlaced("o-2", "NO-SUCH", 1));

    InboxProbe probe = new InboxProbe(dataSource);
    // The listener, in this thread, in the claim's transaction; nothing else claims.
    assertThat(probe.drain(orders.worker())).isEqualTo(2);

    probe.message("orders", "o-1").assertProcessed();
    probe.message("orders", "o-2").assertDeadLetter("unknown sku NO-SUCH");
  }
}
