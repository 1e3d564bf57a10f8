package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Killed backends and a refused database: the worker reconnects with backoff and loses nothing. */
class ConnectionLossTest extends WorkerTestSupport {

  private static long terminate(String inbox, String role) {
    return count(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            + "WHERE application_name = 'inbox:"
            + inbox
            + ":"
            + role
            + "') t");
  }

  private static long backends(String inbox, String role) {
    return count(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'inbox:"
            + inbox
            + ":"
            + role
            + "'");
  }

  @Test
  void an_idle_connection_check_replaces_a_processor_connection_killed_while_idle()
      throws InterruptedException {
    String inbox = newInbox("idlecheck");
    AtomicInteger losses = new AtomicInteger();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true).idleConnectionCheck(Duration.ofMillis(500)).build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      return Outcome.processed();
                    })
                .listener(
                    new WorkerListener() {
                      @Override
                      public void onProcessorConnectionLost(Throwable error, Duration retryIn) {
                        losses.incrementAndGet();
                      }
                    })
                .build());
    worker.start();
    insert(inbox, "a", 0, 1, 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 1);
    String processorPid =
        "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = 'inbox:"
            + inbox
            + ":processor'";
    long killed = count(processorPid);
    assertThat(terminate(inbox, "processor")).isEqualTo(1);

    // No message comes: only the check can find the connection dead, and it opens a new one.
    await().atMost(Duration.ofSeconds(30)).until(() -> losses.get() == 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count(processorPid) != 0 && count(processorPid) != killed);
    insert(inbox, "b", 0, 1, 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 2);
    // The message found a live connection: no batch failed on the dead one.
    assertThat(losses).hasValue(1);
    assertThat(backends(inbox, "processor")).isEqualTo(1);
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void
      a_killed_worker_backend_mid_batch_leaves_the_batch_claimable_and_it_is_processed_exactly_once(
          boolean listen) throws InterruptedException {
    String inbox = newInbox("killbatch");
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).batchSize(10).build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      if (calls.incrementAndGet() == 3) {
                        inHandler.countDown();
                        release.await(30, TimeUnit.SECONDS);
                      }
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    insert(inbox, "m", 0, 10, 10);
    assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
    // The batch is claimed (and marked processed) in an open transaction: kill its backend.
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isEqualTo(10);
    assertThat(terminate(inbox, "processor")).isEqualTo(1);
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 10);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
    // A lost connection is not the message's fault: no failed attempt recorded.
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
    assertThat(worker.isRunning()).isTrue();
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void killed_listener_and_coordinator_backends_reconnect_and_messages_sent_meanwhile_are_found(
      boolean listen) {
    String inbox = newInbox("killlisten");
    RecordingListener events = new RecordingListener();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, listen)
                        .pollInterval(Duration.ofMillis(listen ? 60_000 : 100))
                        .build())
                .listener(events)
                .meterRegistry(registry)
                .handler((m, tx) -> Outcome.processed())
                .build());
    worker.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> events.connected.get() >= 1);
    for (int round = 0; round < 3; round++) {
      int connectedBefore = events.connected.get();
      String role = listen ? "listener" : "coordinator";
      await().atMost(Duration.ofSeconds(10)).until(() -> backends(inbox, role) == 1);
      assertThat(terminate(inbox, role)).isEqualTo(1);
      // Sent while the connection is down or coming back: no notification reaches the worker.
      insert(inbox, "r" + round, 0, 7, 7);
      await().atMost(Duration.ofSeconds(10)).until(() -> events.connected.get() > connectedBefore);
      int expected = (round + 1) * 7;
      await().atMost(Duration.ofSeconds(20)).until(() -> events.committed.get() == expected);
    }
    // Both roles, both modes: killing the coordinator's backend too.
    insert(inbox, "z", 0, 1, 1);
    assertThat(terminate(inbox, "coordinator")).isLessThanOrEqualTo(1);
    insert(inbox, "y", 0, 3, 3);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL") == 0);
    assertThat(events.connectionsLost.get()).isGreaterThanOrEqualTo(listen ? 3 : 3);
    assertThat(registry.get("inbox.reconnects").counter().count()).isGreaterThanOrEqualTo(3);
    assertThat(worker.isRunning()).isTrue();
  }

  @ParameterizedTest(name = "listen={0}, claim ahead={1}")
  @CsvSource({"true, false", "false, false", "true, true"})
  void every_backend_of_the_worker_killed_at_once_under_load_like_a_server_restart_loses_nothing(
      boolean listen, boolean claimAhead) {
    String inbox = newInbox("killall");
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, listen)
                        .concurrency(2)
                        .batchSize(20)
                        .claimAhead(claimAhead)
                        .build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    for (int round = 0; round < 5; round++) {
      insert(inbox, "r" + round, 0, 200, 50);
      count(
          "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
              + "WHERE application_name LIKE 'inbox:"
              + inbox
              + ":%') t");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 1000);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
    // _handled's primary key makes a second handling fail, which would show as a retry.
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
    assertThat(worker.isRunning()).isTrue();
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_database_refusing_connections_at_start_is_retried_with_backoff_until_it_answers(
      boolean listen) {
    String inbox = newInbox("refused");
    RefusingDataSource ds = new RefusingDataSource(dataSource(), true);
    RecordingListener events = new RecordingListener();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(ds, options(inbox, listen).build())
                .listener(events)
                .handler((m, tx) -> Outcome.processed())
                .build());
    insert(inbox, "m", 0, 20, 20);
    worker.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> events.connectionsLost.get() >= 3);
    assertThat(worker.isRunning()).isTrue();
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isEqualTo(20);
    ds.refuse.set(false);
    await().atMost(Duration.ofSeconds(20)).until(() -> events.committed.get() == 20);
    // The listener reconnects on its own backoff schedule, so "connected" may be reported after the
    // processors have already committed through their own, newer connections.
    await().atMost(Duration.ofSeconds(20)).until(() -> events.connected.get() > 0);
  }

  @Test
  void stopping_a_worker_whose_database_never_answered_returns_promptly_and_leaves_no_thread()
      throws InterruptedException {
    String inbox = newInbox("neveranswered");
    RefusingDataSource ds = new RefusingDataSource(dataSource(), true);
    RecordingListener events = new RecordingListener();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(ds, options(inbox, true).build())
                .listener(events)
                .handler((m, tx) -> Outcome.processed())
                .build());
    worker.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> events.connectionsLost.get() >= 2);
    assertThat(worker.isRunning()).isTrue();
    assertThat(workerThreads(inbox)).isNotEmpty();

    worker.stop();
    assertThat(worker.awaitTermination(Duration.ZERO)).isTrue();
    assertThat(worker.isRunning()).isFalse();
    assertThat(worker.failure()).isEmpty();
    assertThat(workerThreads(inbox)).isEmpty();
    // Nothing left to start a run once the database answers.
    ds.refuse.set(false);
    insert(inbox, "m", 0, 5, 5);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(5))
        .until(() -> workerThreads(inbox).isEmpty() && events.committed.get() == 0);
  }

  /** The live threads of the worker of {@code inbox} (they are named {@code inbox-<name>-...}). */
  private static List<String> workerThreads(String inbox) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("inbox-" + inbox + "-"))
        .toList();
  }
}
