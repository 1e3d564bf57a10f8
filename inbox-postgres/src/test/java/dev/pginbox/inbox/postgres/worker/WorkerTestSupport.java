package dev.pginbox.inbox.postgres.worker;

import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.SqlScripts;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;

/**
 * A database with the inbox SQL API per test class, inboxes per test, and the workers a test
 * started (stopped after each test). Messages go in with plain SQL, as any producer would.
 */
abstract class WorkerTestSupport {

  private static final AtomicInteger INBOX_COUNTER = new AtomicInteger();
  static final TestDatabase DB = TestPostgres.shared().newDatabase("workers");
  static final Jdbi JDBI = Jdbi.create(DB.dataSource());

  static {
    try (Handle h = JDBI.open()) {
      SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT);
    }
  }

  private final List<InboxWorker> workers = new ArrayList<>();

  @AfterEach
  void stopWorkers() {
    for (InboxWorker w : workers) {
      w.stop();
    }
    workers.clear();
  }

  <W extends InboxWorker> W track(W worker) {
    workers.add(worker);
    return worker;
  }

  static DataSource dataSource() {
    return DB.dataSource();
  }

  /**
   * A fresh inbox (max retries 3, tiny backoff) and a table "<inbox>_handled" for the handlers'
   * writes.
   */
  static String newInbox(String prefix) {
    return newInbox(prefix, 3);
  }

  static String newInbox(String prefix, int maxRetries) {
    String name = prefix + "_" + INBOX_COUNTER.incrementAndGet();
    try (Handle h = JDBI.open()) {
      h.createQuery(
              "SELECT inbox.create_inbox(?, p_max_retries => ?, p_backoff_base => interval '1 millisecond', "
                  + "p_backoff_max => interval '5 milliseconds')::text")
          .bind(0, name)
          .bind(1, maxRetries)
          .mapTo(String.class)
          .one();
      h.execute(
          "CREATE TABLE "
              + name
              + "_handled (event_id text PRIMARY KEY, worker text, "
              + "aggregate_id text, n bigint GENERATED ALWAYS AS IDENTITY, handled_at timestamptz DEFAULT clock_timestamp())");
    }
    return name;
  }

  static WorkerOptions.Builder options(String inbox, boolean listen) {
    return WorkerOptions.builder(inbox)
        .listen(listen)
        .batchSize(50)
        .batchTimeout(Duration.ZERO)
        .pollInterval(Duration.ofMillis(listen ? 2000 : 50))
        .processingTimeout(Duration.ofSeconds(20))
        .shutdownGrace(Duration.ofSeconds(5))
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
  }

  /**
   * Inserts {@code count} messages "<prefix>-<i>" in one statement; aggregate = "agg-(i %
   * aggregates)".
   */
  static void insert(String inbox, String prefix, int from, int count, int aggregates) {
    try (Handle h = JDBI.open()) {
      h.createUpdate(
              "INSERT INTO inbox."
                  + inbox
                  + " (event_id, event_type, aggregate_id, payload) "
                  + "SELECT :prefix || '-' || i, 'test', 'agg-' || (i % :aggregates), jsonb_build_object('i', i) "
                  + "FROM generate_series(:from, :to) AS i ON CONFLICT (event_id) DO NOTHING")
          .bind("prefix", prefix)
          .bind("aggregates", aggregates)
          .bind("from", from)
          .bind("to", from + count - 1)
          .execute();
    }
  }

  static long count(String sql) {
    try (Handle h = JDBI.open()) {
      return h.createQuery(sql).mapTo(Long.class).one();
    }
  }

  static void execute(String sql) {
    try (Handle h = JDBI.open()) {
      h.execute(sql);
    }
  }

  /**
   * Records a message in the inbox's _handled table inside the handler's transaction (PK = exactly
   * once).
   */
  static void recordHandled(
      Handle h, String inbox, String eventId, String worker, String aggregateId) {
    h.createUpdate(
            "INSERT INTO " + inbox + "_handled (event_id, worker, aggregate_id) VALUES (?, ?, ?)")
        .bind(0, eventId)
        .bind(1, worker)
        .bind(2, aggregateId)
        .execute();
  }

  /** A handler that records each message as handled by {@code worker} ({@link #recordHandled}). */
  static MessageHandler recording(String inbox, String worker) {
    return (m, tx) -> {
      recordHandled(tx.unwrap(Handle.class), inbox, m.eventId(), worker, m.aggregateId());
      return Outcome.processed();
    };
  }

  /**
   * A handler that records each message ({@link #recordHandled}) first and then fails one in five
   * at random (a retry after 1 ms): a failure after the write shows that the savepoint undid it.
   */
  static MessageHandler recordingAndFailingOneInFive(String inbox, String worker) {
    return (m, tx) -> {
      recordHandled(tx.unwrap(Handle.class), inbox, m.eventId(), worker, m.aggregateId());
      if (ThreadLocalRandom.current().nextInt(5) == 0) {
        return Outcome.retryAfter(Duration.ofMillis(1), "random failure");
      }
      return Outcome.processed();
    };
  }

  /** Waits until no message of the inbox is left unprocessed. */
  static void awaitDrained(String inbox, Duration atMost) {
    await()
        .atMost(atMost)
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL") == 0);
  }

  /**
   * Rows of the inbox's _handled table (see {@link #recordHandled}) whose place among their
   * aggregate's handled messages (identity n) is not their place in arrival order (seq): 0 when
   * every aggregate was handled in order.
   */
  static long handledOutOfOrder(String inbox) {
    return count(
        """
        SELECT count(*) FROM (
          SELECT row_number() OVER (PARTITION BY h.aggregate_id ORDER BY h.n) AS handled_rank,
                 row_number() OVER (PARTITION BY h.aggregate_id ORDER BY m.seq) AS arrival_rank
          FROM %1$s_handled h JOIN inbox.%1$s m USING (event_id)) r
        WHERE handled_rank <> arrival_rank"""
            .formatted(inbox));
  }
}
