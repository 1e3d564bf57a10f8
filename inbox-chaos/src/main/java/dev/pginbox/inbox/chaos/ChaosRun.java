package dev.pginbox.inbox.chaos;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a {@link ChaosPlan} against a cluster it may crash: installs the inbox (ordered by
 * aggregate), starts the worker processes, produces while the faults strike, waits until the inbox
 * has drained, stops the workers and reads the outcome from the database. The messages come from a
 * {@link ChaosProducer}.
 */
public final class ChaosRun {

  public static final String INBOX = "chaos";

  private static final Logger LOG = LoggerFactory.getLogger(ChaosRun.class);
  private static final String TERMINATE_WORKER_BACKENDS =
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
          + " WHERE application_name LIKE 'inbox:%' AND pid <> pg_backend_pid()";

  private final PgCluster cluster;
  private final ChaosPlan plan;
  private final Path logDir;
  private final String url;

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
    PostgresInbox inbox = install(url);
    Map<ChaosPlan.Fault, Integer> applied = new EnumMap<>(ChaosPlan.Fault.class);
    try (WorkerProcesses workers = new WorkerProcesses(url, INBOX, logDir)) {
      for (int i = 0; i < plan.workers(); i++) {
        workers.startOne();
      }
      ChaosProducer producer = new ChaosProducer(inbox, plan);
      CompletableFuture<Void> production = CompletableFuture.runAsync(producer::run);
      for (ChaosPlan.Fault fault : plan.faults()) {
        TimeUnit.MILLISECONDS.sleep(plan.faultInterval().toMillis());
        LOG.info("fault: {}", fault);
        apply(fault, workers);
        applied.merge(fault, 1, Integer::sum);
      }
      production.get(
          ChaosProducer.SEND_GIVE_UP.toSeconds() + plan.messages() / plan.messagesPerSecond() + 60,
          TimeUnit.SECONDS);
      awaitDrained(url, plan.drainTimeout());
      ChaosChecks checks;
      try (Connection c = connect()) {
        checks = ChaosChecks.read(c, INBOX);
      }
      return new ChaosReport(
          plan.messages(),
          producer.sendAttempts(),
          producer.transientFailures(),
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

  static PostgresInbox install(String url) throws SQLException {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(url);
    PostgresInboxManager manager = PostgresInboxManager.create(dataSource);
    manager.install();
    // Faults never charge a message, so no message should ever come near this.
    PostgresInbox inbox = manager.createInbox(INBOX, InboxOptions.builder().maxRetries(50).build());
    manager.enableOrdering(INBOX, "aggregate_id", "seq");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(ChaosWorker.EFFECTS_DDL);
    }
    return inbox;
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

  static void awaitDrained(String url, Duration timeout) throws SQLException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = DriverManager.getConnection(url);
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
    LOG.warn("the inbox did not drain within {}", timeout);
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(url);
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
