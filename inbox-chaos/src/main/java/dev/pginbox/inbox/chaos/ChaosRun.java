package dev.pginbox.inbox.chaos;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a {@link ChaosPlan} against a cluster it may crash: installs the inbox (ordered by
 * aggregate), starts the worker processes, produces while the faults strike, waits until the inbox
 * has drained, stops the workers and reads the outcome from the database.
 *
 * <p>The producer sends each aggregate's versions in order, one {@code sendAll} at a time, with
 * event ids that sort against the send order, resends some batches whole (duplicates), and retries
 * a send whose failure is transient ({@link InboxException#isTransient()}): sending is idempotent,
 * so a send whose commit was lost with the server is simply sent again.
 */
public final class ChaosRun {

  public static final String INBOX = "chaos";

  private static final Logger LOG = LoggerFactory.getLogger(ChaosRun.class);
  private static final Duration SEND_GIVE_UP = Duration.ofMinutes(2);
  private static final String TERMINATE_WORKER_BACKENDS =
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
          + " WHERE application_name LIKE 'inbox:%' AND pid <> pg_backend_pid()";

  private final PgCluster cluster;
  private final ChaosPlan plan;
  private final Path logDir;
  private final String url;
  private final AtomicLong sendAttempts = new AtomicLong();
  private final AtomicLong transientFailures = new AtomicLong();

  /**
   * @param cluster a running cluster the run may terminate, restart and crash
   * @param logDir where the worker processes write their logs
   */
  public ChaosRun(PgCluster cluster, ChaosPlan plan, Path logDir) {
    this.cluster = cluster;
    this.plan = plan;
    this.logDir = logDir;
    this.url = cluster.jdbcUrl("postgres");
  }

  public ChaosReport run() throws Exception {
    long start = System.nanoTime();
    PostgresInbox inbox = install();
    Map<ChaosPlan.Fault, Integer> applied = new EnumMap<>(ChaosPlan.Fault.class);
    try (WorkerProcesses workers = new WorkerProcesses(url, INBOX, logDir)) {
      for (int i = 0; i < plan.workers(); i++) {
        workers.startOne();
      }
      CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> produce(inbox));
      for (ChaosPlan.Fault fault : plan.faults()) {
        TimeUnit.MILLISECONDS.sleep(plan.faultInterval().toMillis());
        LOG.info("fault: {}", fault);
        apply(fault, workers);
        applied.merge(fault, 1, Integer::sum);
      }
      producer.get(
          SEND_GIVE_UP.toSeconds() + plan.messages() / plan.messagesPerSecond() + 60,
          TimeUnit.SECONDS);
      awaitDrained();
      ChaosChecks checks;
      try (Connection c = connect()) {
        checks = ChaosChecks.read(c, INBOX);
      }
      return new ChaosReport(
          plan.messages(),
          sendAttempts.get(),
          transientFailures.get(),
          applied,
          workers.started(),
          Duration.ofNanos(System.nanoTime() - start),
          checks.stored,
          checks.effects,
          checks.distinctEffects,
          checks.unprocessed,
          checks.deadLetters,
          checks.outOfOrder,
          checks.violations(plan.messages()));
    }
  }

  private PostgresInbox install() throws SQLException {
    PostgresInboxManager manager = PostgresInboxManager.create(dataSource());
    manager.install();
    // Faults never charge a message, so no message should ever come near this.
    PostgresInbox inbox = manager.createInbox(INBOX, InboxOptions.builder().maxRetries(50).build());
    manager.enableOrdering(INBOX, "aggregate_id", "seq");
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(ChaosWorker.EFFECTS_DDL);
    }
    return inbox;
  }

  private void produce(PostgresInbox inbox) {
    List<NewMessage> previous = List.of();
    long started = System.nanoTime();
    int batches = 0;
    for (int first = 0; first < plan.messages(); first += plan.batchSize()) {
      List<NewMessage> batch = new ArrayList<>();
      for (int i = first; i < Math.min(first + plan.batchSize(), plan.messages()); i++) {
        batch.add(message(i));
      }
      send(inbox, batch);
      batches++;
      if (plan.duplicateEvery() > 0 && batches % plan.duplicateEvery() == 0) {
        send(inbox, previous);
      }
      previous = batch;
      long due =
          started + TimeUnit.SECONDS.toNanos(first + batch.size()) / plan.messagesPerSecond();
      long wait = due - System.nanoTime();
      if (wait > 0) {
        sleep(TimeUnit.NANOSECONDS.toMillis(wait));
      }
    }
    LOG.info("produced {} messages", plan.messages());
  }

  /**
   * Message {@code i}: aggregate {@code i mod aggregates}, version {@code i / aggregates + 1}, and
   * an event id from a bijective scramble of {@code i}, so ids sort in no relation to send order.
   */
  private NewMessage message(int i) {
    int aggregate = i % plan.aggregates();
    int version = i / plan.aggregates() + 1;
    String eventId = String.format("%08x", i * 0x9E3779B1);
    return NewMessage.of(eventId, "chaos", "agg-" + aggregate, "{\"v\": " + version + "}");
  }

  private void send(PostgresInbox inbox, List<NewMessage> batch) {
    if (batch.isEmpty()) {
      return;
    }
    long giveUp = System.nanoTime() + SEND_GIVE_UP.toNanos();
    while (true) {
      sendAttempts.incrementAndGet();
      try {
        inbox.sendAll(batch);
        return;
      } catch (InboxException e) {
        if (!e.isTransient() || System.nanoTime() > giveUp) {
          throw e;
        }
        transientFailures.incrementAndGet();
        sleep(100);
      }
    }
  }

  private void apply(ChaosPlan.Fault fault, WorkerProcesses workers) throws Exception {
    switch (fault) {
      case KILL_WORKER -> workers.killOneAndReplace();
      case TERMINATE_BACKENDS -> {
        try (Connection c = connect();
            Statement s = c.createStatement()) {
          s.execute(TERMINATE_WORKER_BACKENDS);
        }
      }
      case RESTART_FAST -> cluster.restart(PgCluster.StopMode.FAST);
      case RESTART_IMMEDIATE -> cluster.restart(PgCluster.StopMode.IMMEDIATE);
    }
  }

  private void awaitDrained() throws SQLException {
    long deadline = System.nanoTime() + plan.drainTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = connect();
          Statement s = c.createStatement();
          var rs =
              s.executeQuery(
                  "SELECT count(*) FILTER (WHERE processed_at IS NULL) FROM inbox." + INBOX)) {
        rs.next();
        if (rs.getLong(1) == 0) {
          return;
        }
      }
      sleep(250);
    }
    LOG.warn("the inbox did not drain within {}", plan.drainTimeout());
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(url);
  }

  private PGSimpleDataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    return ds;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
