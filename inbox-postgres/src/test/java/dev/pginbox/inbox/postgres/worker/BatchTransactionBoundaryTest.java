package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A transaction boundary of the application's own, as a framework would provide it: a connection
 * per transaction, bound to the thread, which the handler's data access finds without {@code
 * unwrap}. The worker's guarantees hold through it.
 */
class BatchTransactionBoundaryTest extends WorkerTestSupport {

  /** Like a framework's transaction manager: begins, binds the connection to the thread, ends. */
  static final class ThreadBoundTransactions implements BatchTransactionBoundary {
    private final DataSource dataSource;
    private final ThreadLocal<Connection> current = new ThreadLocal<>();
    final AtomicInteger committed = new AtomicInteger();
    final AtomicInteger rolledBack = new AtomicInteger();

    ThreadBoundTransactions(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    @Override
    public <T> T inTransaction(Work<T> work) throws SQLException {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        current.set(c);
        boolean[] rollbackOnly = {false};
        T result;
        try {
          result = work.run(c, () -> rollbackOnly[0] = true);
        } catch (SQLException | RuntimeException e) {
          rollbackQuietly(c);
          throw e;
        }
        if (rollbackOnly[0]) {
          c.rollback();
          rolledBack.incrementAndGet();
        } else {
          c.commit();
          committed.incrementAndGet();
        }
        return result;
      } finally {
        current.remove();
      }
    }

    private void rollbackQuietly(Connection c) {
      try {
        c.rollback();
      } catch (SQLException ignored) {
        // the connection is gone: so is the transaction
      }
      rolledBack.incrementAndGet();
    }

    /** What the handler's data-access code finds: the transaction's connection. */
    Connection connection() {
      return current.get();
    }
  }

  private static void write(Connection c, String inbox, String eventId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + inbox + "_handled (event_id, worker) VALUES (?, 'w')")) {
      ps.setString(1, eventId);
      ps.executeUpdate();
    }
  }

  @Test
  void handler_writes_through_the_boundary_commit_with_the_batch_and_a_failure_undoes_only_its_own()
      throws Exception {
    String inbox = newInbox("boundary");
    ThreadBoundTransactions boundary = new ThreadBoundTransactions(dataSource());
    AtomicInteger m3Calls = new AtomicInteger();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(10).build())
                .transactionBoundary(boundary)
                .handler(
                    (m, tx) -> {
                      write(boundary.connection(), inbox, m.eventId()); // no unwrap
                      if (m.eventId().equals("m-3") && m3Calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first attempt fails after writing");
                      }
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 10, 10);
    worker.start();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 10);
    // Each message's write exactly once: the failed attempt's write was rolled back with it.
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(10);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-3'"))
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0"))
        .isEqualTo(1);
    assertThat(boundary.committed.get()).isPositive();
  }

  @Test
  void the_processing_timeout_works_through_the_boundary_and_charges_only_the_hung_message() {
    String inbox = newInbox("boundarytimeout", 2);
    ThreadBoundTransactions boundary = new ThreadBoundTransactions(dataSource());
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true)
                        .batchSize(10)
                        .processingTimeout(Duration.ofMillis(300))
                        .build())
                .transactionBoundary(boundary)
                .handler(
                    (m, tx) -> {
                      write(boundary.connection(), inbox, m.eventId());
                      if (m.eventId().equals("m-2")) {
                        new CountDownLatch(1).await();
                      }
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 10, 10);
    worker.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox."
                            + inbox
                            + "_dlq WHERE event_id = 'm-2' AND error LIKE 'processing timeout%'")
                    == 1);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 9);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE event_id <> 'm-2' AND retry_count > 0"))
        .isZero();
    // The hung message's writes were undone each time; the others' written exactly once.
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(9);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled WHERE event_id = 'm-2'")).isZero();
  }

  @Test
  void a_connection_lost_mid_batch_through_the_boundary_charges_nobody() throws Exception {
    String inbox = newInbox("boundarykill");
    ThreadBoundTransactions boundary = new ThreadBoundTransactions(dataSource());
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch killed = new CountDownLatch(1);
    AtomicInteger backendPid = new AtomicInteger();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(10).build())
                .transactionBoundary(boundary)
                .handler(
                    (m, tx) -> {
                      Connection c = boundary.connection();
                      write(c, inbox, m.eventId());
                      if (m.eventId().equals("m-4") && inHandler.getCount() > 0) {
                        try (ResultSet rs =
                            c.createStatement().executeQuery("SELECT pg_backend_pid()")) {
                          rs.next();
                          backendPid.set(rs.getInt(1));
                        }
                        inHandler.countDown();
                        killed.await(30, TimeUnit.SECONDS);
                      }
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 10, 10);
    worker.start();
    assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(count("SELECT count(*) FROM pg_terminate_backend(" + backendPid.get() + ")"))
        .isEqualTo(1);
    killed.countDown();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 10);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(10);
  }
}
