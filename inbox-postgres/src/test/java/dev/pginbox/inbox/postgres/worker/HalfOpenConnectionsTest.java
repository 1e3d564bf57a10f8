package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import dev.pginbox.inbox.testing.CountingProxy;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * Every connection of a listening worker goes half-open at once (a NAT or firewall forgot them:
 * nothing arrives, nothing is closed, no error). The idle connection check finds them out and the
 * worker reconnects: a message sent afterwards is handled, and the next one by notification again,
 * not by a poll.
 */
class HalfOpenConnectionsTest extends WorkerTestSupport {

  private static long handled(String inbox) {
    return count("SELECT count(*) FROM " + inbox + "_handled");
  }

  @Test
  void a_worker_whose_connections_all_went_silent_reconnects_and_listens_again() throws Exception {
    String inbox = newInbox("halfopen");
    try (CountingProxy proxy = new CountingProxy(DB.port())) {
      InboxWorker worker =
          track(
              PostgresInboxWorker.builder(
                      DB.withPort(proxy.port()).dataSource(),
                      options(inbox, true)
                          // A poll far beyond the test's patience: only a notification (or the
                          // look after a reconnect) can bring a message in time.
                          .pollInterval(Duration.ofMinutes(5))
                          .idleConnectionCheck(Duration.ofMillis(500))
                          .build())
                  .handler(
                      (m, tx) -> {
                        recordHandled(
                            tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                        return Outcome.processed();
                      })
                  .build());
      worker.start();
      insert(inbox, "a", 0, 1, 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> handled(inbox) == 1);
      int before = proxy.accepted();

      proxy.silenceAll();
      insert(inbox, "b", 0, 1, 1); // its notification is lost on the silent listener connection
      await().atMost(Duration.ofSeconds(60)).until(() -> handled(inbox) == 2);
      assertThat(proxy.accepted()).as("new connections").isGreaterThan(before);

      // Listening again: the next message comes by notification, long before any poll.
      insert(inbox, "c", 0, 1, 1);
      await().atMost(Duration.ofSeconds(10)).until(() -> handled(inbox) == 3);
      assertThat(worker.isHealthy()).isTrue();
    }
  }
}
