package dev.pginbox.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mailroom.config.MailroomConfig;
import dev.mailroom.schema.SchemaInstaller;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A primary and a synchronous streaming standby, both started here; producer and worker processes
 * on a multi-host URL ({@code targetServerType=primary}), sign-ups and the mailroom collector
 * process on the libpq form ({@code target_session_attrs=read-write}). The primary is killed
 * ({@code pg_ctl stop -m immediate}) while messages flow and the standby promoted: nothing
 * acknowledged is lost, nothing is applied twice, every aggregate keeps its order, every sign-up's
 * token is printed, and work resumes on the new primary.
 */
class FailoverTest {

  private static final int SIGN_UPS = 300;
  private static final String BASE = "/tmp/inbox-failover-" + ProcessHandle.current().pid();

  @Test
  void killing_the_primary_and_promoting_its_synchronous_standby_loses_and_doubles_nothing()
      throws Exception {
    PgBinaries binaries = binaries();
    Path logs = Files.createDirectories(Path.of("target", "failover-logs"));
    ChaosPlan plan =
        new ChaosPlan(3_000, 30, 40, 150, 7, 2, List.of(), Duration.ZERO, Duration.ofMinutes(2));
    int primaryPort = FreePorts.from(55860, 55869);
    try (PgCluster primary =
            PgCluster.create(
                binaries,
                Path.of(BASE + "-primary"),
                primaryPort,
                Map.of(
                    "synchronous_standby_names", "*",
                    "synchronous_commit", "on",
                    "fsync", "off",
                    "max_connections", "100"));
        PgCluster standby = startStandby(primary)) {
      String url =
          "jdbc:postgresql://127.0.0.1:"
              + primary.port()
              + ",127.0.0.1:"
              + standby.port()
              + "/postgres?user=postgres&targetServerType=primary&connectTimeout=5";
      PostgresInbox inbox = ChaosRun.install(url);
      PGSimpleDataSource mailroomDb = new PGSimpleDataSource();
      mailroomDb.setURL(url);
      SchemaInstaller.install(
          mailroomDb, MailroomConfig.DEFAULT_QUEUE, MailroomConfig.DEFAULT_CHANNEL);
      String libpq =
          "host=127.0.0.1,127.0.0.1 port="
              + primary.port()
              + ","
              + standby.port()
              + " user=postgres dbname=postgres target_session_attrs=read-write connect_timeout=5";

      Instant killedAt;
      Instant promotedAt;
      ChaosProducer producer = new ChaosProducer(inbox, plan);
      try (WorkerProcesses workers = new WorkerProcesses(url, ChaosRun.INBOX, logs);
          CollectorProcess collector = new CollectorProcess(libpq, logs.resolve("collector.log"))) {
        for (int i = 0; i < plan.workers(); i++) {
          workers.startOne();
        }
        CompletableFuture<Void> production = CompletableFuture.runAsync(producer::run);
        CompletableFuture<Void> signUps = CompletableFuture.runAsync(() -> signUp(url));
        await()
            .atMost(Duration.ofMinutes(1))
            .until(() -> producer.sent() >= plan.messages() / 3 && effects(url) > 0);

        killedAt = Instant.now();
        primary.stop(PgCluster.StopMode.IMMEDIATE);
        standby.promote();
        promotedAt = Instant.now();

        production.get(3, TimeUnit.MINUTES);
        signUps.get(3, TimeUnit.MINUTES);
        ChaosRun.awaitDrained(url, plan.drainTimeout());
        await()
            .atMost(Duration.ofMinutes(2))
            .until(() -> Set.copyOf(collector.printedLogins()).size() == SIGN_UPS);
        List<String> printed = collector.printedLogins();
        System.out.printf(
            "failover: the collector printed %d sign-ups, %d of them again (a batch whose commit"
                + " was lost at the kill is printed again: at least once)%n",
            SIGN_UPS, printed.size() - SIGN_UPS);
        assertThat(Set.copyOf(printed)).hasSize(SIGN_UPS);
      }

      try (Connection c = DriverManager.getConnection(standby.jdbcUrl("postgres"));
          Statement s = c.createStatement()) {
        ChaosChecks checks = ChaosChecks.read(c, ChaosRun.INBOX);
        assertThat(checks.violations(plan.messages())).isEmpty();
        // Only the new primary can have applied a message after the promotion returned.
        try (ResultSet rs =
            s.executeQuery(
                "SELECT count(*), extract(epoch FROM min(applied_at) - '"
                    + promotedAt
                    + "'::timestamptz) FROM chaos_effects WHERE applied_at > '"
                    + promotedAt
                    + "'::timestamptz")) {
          rs.next();
          long resumed = rs.getLong(1);
          System.out.printf(
              "failover (PostgreSQL %d): kill to promotion %.2f s; %d of %d messages applied after"
                  + " the promotion, the first %.2f s after it; %d transient send failures"
                  + " retried%n",
              binaries.major(),
              Duration.between(killedAt, promotedAt).toMillis() / 1000.0,
              resumed,
              plan.messages(),
              rs.getDouble(2),
              producer.transientFailures());
          assertThat(resumed).as("work resumed on the promoted standby").isPositive();
        }
      }
    }
  }

  /** Sign-ups on the multi-host URL, each retried until it commits (idempotent by email). */
  private static void signUp(String url) {
    for (int i = 0; i < SIGN_UPS; i++) {
      while (true) {
        try (Connection c = DriverManager.getConnection(url);
            var s =
                c.prepareStatement(
                    "INSERT INTO accounts (email, login) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
          s.setString(1, "user" + i + "@failover.test");
          s.setString(2, "user" + i);
          s.executeUpdate();
          break;
        } catch (java.sql.SQLException e) {
          if (!connectionProblem(e.getSQLState())) {
            throw new IllegalStateException(e);
          }
          sleep(100);
        }
      }
      sleep(40);
    }
  }

  /** No server, a server going away, or a standby: what a failover looks like to a client. */
  private static boolean connectionProblem(String sqlState) {
    return sqlState != null
        && (sqlState.startsWith("08") || sqlState.startsWith("57P") || sqlState.equals("25006"));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static PgCluster startStandby(PgCluster primary) throws Exception {
    primary.start();
    PgCluster standby =
        PgCluster.standbyOf(
            primary, Path.of(BASE + "-standby"), FreePorts.from(primary.port() + 1, 55879));
    standby.start();
    await()
        .atMost(Duration.ofMinutes(1))
        .until(
            () ->
                count(
                        primary.jdbcUrl("postgres"),
                        "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")
                    == 1);
    return standby;
  }

  private static long effects(String url) {
    try {
      return count(url, "SELECT count(*) FROM chaos_effects");
    } catch (Exception e) {
      return 0;
    }
  }

  private static long count(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Binaries with pg_basebackup: those of the test server's version (15 in CI's second run), else
   * the newest installed; a clear skip when there are none.
   */
  static PgBinaries binaries() {
    TestDatabase probe = TestPostgres.shared().newDatabase("failover_probe");
    Optional<PgBinaries> found =
        PgBinaries.matching(probe.jdbcUrl(), probe.user(), probe.password(), "pg_basebackup")
            .or(() -> PgBinaries.newestInstalled("pg_basebackup"));
    assumeTrue(
        found.isPresent(),
        "SKIP: no PostgreSQL server binaries with pg_basebackup; install postgresql-15 or set "
            + PgBinaries.BIN_VARIABLE);
    return found.get();
  }
}
