package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Graceful stop, the processing timeout, and start/stop cycles that leak nothing. */
class ShutdownAndTimeoutTest extends WorkerTestSupport {

  /**
   * More than a worker of two processors keeps (processors, coordinator, listener, maintenance).
   */
  private static final int POOL_SIZE = 8;

  /**
   * Every message is either processed with its handler's write, or pending without it: nothing
   * half-done.
   */
  private static void assertNothingHalfDone(String inbox) {
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " m LEFT JOIN "
                    + inbox
                    + "_handled h USING (event_id) "
                    + "WHERE (m.processed_at IS NULL) <> (h.event_id IS NULL)"))
        .isZero();
  }

  /** No row of the inbox is locked by anyone. */
  private static void assertNothingLocked(String inbox) {
    try (Handle h = JDBI.open()) {
      h.useTransaction(
          tx ->
              tx.createQuery("SELECT event_id FROM inbox." + inbox + " FOR UPDATE NOWAIT")
                  .mapTo(String.class)
                  .list());
    }
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_graceful_stop_during_continuous_inserts_loses_nothing_and_leaves_nothing_half_done(
      boolean listen) throws InterruptedException {
    String inbox = newInbox("graceful");
    AtomicInteger handled = new AtomicInteger();
    InboxWorker worker =
        PostgresInboxWorker.builder(
                dataSource(), options(inbox, listen).concurrency(2).batchSize(20).build())
            .handler(
                (m, tx) -> {
                  recordHandled(tx.unwrap(Handle.class), inbox, m.eventId(), "w1", m.aggregateId());
                  handled.incrementAndGet();
                  return Outcome.processed();
                })
            .build();
    worker.start();
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicInteger produced = new AtomicInteger();
    Thread producer =
        new Thread(
            () -> {
              while (producing.get()) {
                insert(inbox, "m", produced.get(), 10, 50);
                produced.addAndGet(10);
              }
            });
    producer.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> handled.get() > 300);
    worker.stop();
    assertThat(worker.isRunning()).isFalse();
    assertThat(worker.awaitTermination(Duration.ofSeconds(1))).isTrue();
    producing.set(false);
    producer.join();
    assertNothingHalfDone(inbox);
    assertNothingLocked(inbox);

    // A new worker takes over the rest: all exactly once.
    track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w2", m.aggregateId());
                      return Outcome.processed();
                    })
                .build())
        .start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == produced.get());
    assertThat(count("SELECT count(*) FROM inbox." + inbox)).isEqualTo(produced.get());
  }

  @Test
  void a_batch_still_running_after_the_grace_period_is_rolled_back_and_nothing_stays_locked()
      throws InterruptedException {
    String inbox = newInbox("grace");
    CountDownLatch inHandler = new CountDownLatch(1);
    InboxWorker worker =
        PostgresInboxWorker.builder(
                dataSource(), options(inbox, true).shutdownGrace(Duration.ofMillis(200)).build())
            .handler(
                (m, tx) -> {
                  recordHandled(tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                  inHandler.countDown();
                  new CountDownLatch(1).await(); // hangs until interrupted
                  return Outcome.processed();
                })
            .build();
    worker.start();
    insert(inbox, "m", 0, 3, 3);
    assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
    worker.stop();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertNothingLocked(inbox));
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE processed_at IS NULL AND retry_count = 0"))
        .isEqualTo(3);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isZero();
  }

  @ParameterizedTest(name = "handler ignores interrupts={0}")
  @ValueSource(booleans = {false, true})
  void
      a_handler_hanging_past_the_processing_timeout_is_rolled_back_counted_as_failed_and_the_worker_moves_on(
          boolean ignoresInterrupts) {
    String inbox = newInbox("timeout");
    AtomicBoolean hangOver = new AtomicBoolean();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true)
                        .processingTimeout(Duration.ofMillis(500))
                        .batchSize(1)
                        .build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      if (m.eventId().equals("hang-0") && m.retryCount() == 0) {
                        if (ignoresInterrupts) {
                          while (!hangOver.get()) {
                            Thread.onSpinWait();
                          }
                        } else {
                          new CountDownLatch(1).await();
                        }
                      }
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    insert(inbox, "hang", 0, 1, 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox."
                            + inbox
                            + " WHERE retry_count = 1 AND error LIKE '%timeout%'")
                    == 1);
    // The worker moved on: other messages flow, and the timed-out one is retried and processed.
    insert(inbox, "next", 0, 5, 5);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 6);
    hangOver.set(true);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
  }

  /**
   * An application that lends the worker its own pool gets every connection back intact: stopping
   * cuts none of them (the pool would evict each cut one, with a warning and a stack trace).
   */
  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_worker_on_an_applications_pool_gives_every_connection_back_intact_at_stop(boolean listen)
      throws SQLException, InterruptedException {
    String inbox = newInbox("pool");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(DB.jdbcUrl());
    config.setUsername(DB.user());
    config.setPassword(DB.password());
    config.setMaximumPoolSize(POOL_SIZE);
    config.setMinimumIdle(POOL_SIZE);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      InboxWorker worker =
          PostgresInboxWorker.builder(pool, options(inbox, listen).concurrency(2).build())
              .handler(recording(inbox, "w"))
              .build();
      worker.start();
      insert(inbox, "m", 0, 200, 20);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 200);
      List<Long> used =
          JDBI.withHandle(
              h ->
                  h.createQuery(
                          "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'inbox:"
                              + inbox
                              + ":%'")
                      .mapTo(Long.class)
                      .list());
      assertThat(used).hasSizeGreaterThanOrEqualTo(listen ? 4 : 3);
      worker.stop();
      assertThat(worker.awaitTermination(Duration.ofSeconds(1))).isTrue();

      // All of the pool's connections at once: an evicted one would be a new backend.
      List<Connection> all = new ArrayList<>();
      Set<Long> pooled = new HashSet<>();
      try {
        for (int i = 0; i < POOL_SIZE; i++) {
          Connection c = pool.getConnection();
          all.add(c);
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pooled.add(rs.getLong(1));
          }
        }
      } finally {
        for (Connection c : all) {
          c.close();
        }
      }
      assertThat(pooled).containsAll(used);
    }
  }

  @Test
  void stopping_a_worker_that_never_started_returns_at_once() throws InterruptedException {
    InboxWorker worker =
        PostgresInboxWorker.builder(dataSource(), options(newInbox("never"), true).build())
            .handler((m, tx) -> Outcome.processed())
            .build();
    assertThat(worker.awaitTermination(Duration.ZERO)).isTrue();
    worker.stop();
    assertThat(worker.isRunning()).isFalse();
    assertThat(worker.failure()).isEmpty();
  }

  @Test
  void a_hundred_start_stop_cycles_leak_no_threads_and_no_connections() {
    String inbox = newInbox("cycles");
    insert(inbox, "m", 0, 100, 10);
    long baselineConnections =
        count(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'inbox:"
                + inbox
                + ":%'");
    int baselineThreads = Thread.activeCount();
    AtomicInteger handled = new AtomicInteger();
    InboxWorker worker =
        PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(1).build())
            .handler(
                (m, tx) -> {
                  handled.incrementAndGet();
                  return Outcome.processed();
                })
            .build();
    for (int i = 0; i < 100; i++) {
      worker.start();
      worker.stop();
    }
    // Also workers built anew each time, in poll-only mode.
    for (int i = 0; i < 20; i++) {
      InboxWorker w =
          PostgresInboxWorker.builder(dataSource(), options(inbox, false).build())
              .handler((m, tx) -> Outcome.processed())
              .build();
      w.start();
      w.stop();
    }
    // Polled in this thread: Awaitility's own poller thread would count as a thread.
    await()
        .pollInSameThread()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(
                      count(
                          "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'inbox:"
                              + inbox
                              + ":%'"))
                  .isEqualTo(baselineConnections);
              assertThat(Thread.activeCount()).isLessThanOrEqualTo(baselineThreads);
            });
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("inbox-" + inbox + "-"));
    assertNothingLocked(inbox);
  }
}
