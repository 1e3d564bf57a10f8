package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Failures that are the database's set-up, not the message's: they never charge a message, and a
 * set-up mistake found at start fails the start instead of being retried forever.
 */
class EnvironmentalFailuresTest extends WorkerTestSupport {

  @Test
  void
      a_revoked_privilege_charges_no_message_reports_unhealthy_and_the_messages_flow_once_granted() {
    String inbox = newInbox("revoked");
    String role = inbox + "_writer";
    execute("CREATE ROLE " + role + " NOLOGIN");
    execute("GRANT USAGE ON SCHEMA public TO " + role);
    List<String> refusals = new CopyOnWriteArrayList<>();
    AtomicInteger recoveries = new AtomicInteger();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(5).build())
                .listener(
                    new WorkerListener() {
                      @Override
                      public void onDatabaseRefused(
                          String sqlState, Throwable error, Duration retryIn) {
                        refusals.add(sqlState);
                      }

                      @Override
                      public void onDatabaseRecovered() {
                        recoveries.incrementAndGet();
                      }
                    })
                .handler(
                    (m, tx) -> {
                      Handle h = tx.unwrap(Handle.class);
                      // The handler's writes run as a role whose grant the operator revoked.
                      h.execute("SET LOCAL ROLE " + role);
                      recordHandled(h, inbox, m.eventId(), "w", m.aggregateId());
                      h.execute("RESET ROLE");
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 10, 10);
    worker.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> !refusals.isEmpty());
    await().atMost(Duration.ofSeconds(20)).until(() -> !worker.isHealthy());
    assertThat(worker.isRunning()).isTrue();
    assertThat(refusals).first().isEqualTo("42501");
    // However often it is tried, no message is charged and none is dead.
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox."
                            + inbox
                            + " WHERE retry_count > 0 OR processed_at IS NOT NULL")
                    == 0);
    assertThat(refusals).hasSize(1); // once per episode
    execute("GRANT INSERT ON " + inbox + "_handled TO " + role);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 10);
    await().atMost(Duration.ofSeconds(10)).until(worker::isHealthy);
    assertThat(recoveries.get()).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(10);
  }

  @Test
  void starting_a_worker_for_a_missing_inbox_fails_at_once_and_stop_returns() {
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options("no_such_inbox", true).build())
                .handler((m, tx) -> Outcome.processed())
                .build());
    assertThatThrownBy(worker::start)
        .isInstanceOf(InboxNotFoundException.class)
        .hasMessageContaining("no_such_inbox");
    assertThat(worker.isRunning()).isFalse();
    worker.stop(); // returns at once: nothing was started
    assertThat(worker.failure()).isEmpty();
  }

  @Test
  void a_missing_inbox_found_once_the_database_answers_fails_the_worker_instead_of_retrying() {
    RefusingDataSource ds = new RefusingDataSource(dataSource(), true);
    InboxWorker worker =
        track(
            // Poll only: no LISTEN connection, whose missing channel would tell it too.
            PostgresInboxWorker.builder(ds, options("not_created_yet", false).build())
                .handler((m, tx) -> Outcome.processed())
                .build());
    worker.start(); // the database is unreachable: the start cannot check the inbox yet
    assertThat(worker.isRunning()).isTrue();
    ds.refuse.set(false);
    await().atMost(Duration.ofSeconds(20)).until(() -> worker.failure().isPresent());
    assertThat(worker.failure().get())
        .isInstanceOf(InboxNotFoundException.class)
        .hasMessageContaining("not_created_yet");
    await().atMost(Duration.ofSeconds(20)).until(() -> !worker.isRunning());
  }

  @Test
  void the_start_check_opens_no_connection_of_its_own() {
    String inbox = newInbox("startconn");
    insert(inbox, "m", 0, 10, 10);
    AtomicInteger opened = new AtomicInteger();
    DataSource counting =
        (DataSource)
            Proxy.newProxyInstance(
                DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    opened.incrementAndGet();
                  }
                  try {
                    return method.invoke(dataSource(), args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(counting, options(inbox, true).retention(false).build())
                .handler((m, tx) -> Outcome.processed())
                .build());
    worker.start();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL") == 0);
    // Every connection the worker took is still open: the check's became the processor's (a
    // start used to cost one connection more, opened and closed, on every worker start).
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        count(
                            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'inbox:"
                                + inbox
                                + ":%'"))
                    .isEqualTo(opened.get()));
    assertThat(opened.get()).isGreaterThanOrEqualTo(2); // the processor's and the listener's
  }

  @Test
  void an_invalid_sslmode_fails_the_start_with_the_drivers_reason() {
    String inbox = newInbox("sslmode");
    PGSimpleDataSource bad = new PGSimpleDataSource();
    bad.setURL(DB.jdbcUrl() + (DB.jdbcUrl().contains("?") ? "&" : "?") + "sslmode=bogus");
    bad.setUser(DB.user());
    bad.setPassword(DB.password());
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(bad, options(inbox, true).build())
                .handler((m, tx) -> Outcome.processed())
                .build());
    assertThatThrownBy(worker::start)
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("sslmode");
    assertThat(worker.isRunning()).isFalse();
    worker.stop();
  }
}
