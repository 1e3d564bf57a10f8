package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import dev.pginbox.inbox.testsupport.CountingProxy;
import java.time.Duration;
import java.util.Arrays;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * Every connection of a listening worker goes half-open at once (a NAT or firewall forgot them:
 * nothing arrives, nothing is closed, no error). The idle connection check finds them out and the
 * worker reconnects: a message sent afterwards is handled, and the next one by notification again,
 * not by a poll. And a worker whose maintenance connection went silent in the middle of a statement
 * still stops.
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

  @Test
  void a_worker_whose_maintenance_connection_went_silent_still_stops() throws Exception {
    String inbox = newInbox("halfopenstop");
    try (CountingProxy proxy = new CountingProxy(DB.port())) {
      InboxWorker worker =
          PostgresInboxWorker.builder(
                  DB.withPort(proxy.port()).dataSource(),
                  options(inbox, false).shutdownGrace(Duration.ofSeconds(1)).build())
              .gaugeInterval(Duration.ofMillis(100))
              .handler((m, tx) -> Outcome.processed())
              .build();
      worker.start();
      insert(inbox, "a", 0, 1, 1);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                      == 1);

      proxy.silenceAll();
      // The next gauge refresh (every 100 ms) waits for an answer that never comes; the stop
      // announced the worker's end on that same connection, behind it, for a quarter of an hour.
      await().atMost(Duration.ofSeconds(20)).until(() -> waitsInSocketRead(inbox + "-maintenance"));
      assertTimeoutPreemptively(Duration.ofSeconds(30), worker::stop);
      assertThat(worker.isRunning()).isFalse();
    }
  }

  /** Whether the thread whose name ends with {@code suffix} waits for an answer on a socket. */
  private static boolean waitsInSocketRead(String suffix) {
    return Thread.getAllStackTraces().entrySet().stream()
        .anyMatch(
            e ->
                e.getKey().getName().endsWith(suffix)
                    && Arrays.stream(e.getValue())
                        .anyMatch(
                            f ->
                                f.getClassName().contains("Socket")
                                    && f.getMethodName().startsWith("read")));
  }
}
