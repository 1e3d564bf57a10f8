package dev.pginbox.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Worker processes killed with SIGKILL, their backends terminated, the server restarted fast and
 * crashed (immediate), while messages with deliberate duplicates flow: afterwards the database must
 * show every message applied exactly once and every aggregate's messages applied in order.
 *
 * <p>The reduced plan runs in the normal build; {@code -Dinbox.chaos.mode=release} runs the release
 * plan (100,000 messages, see docs/operations.md).
 */
class ChaosSuiteTest {

  @Test
  void faults_lose_nothing_apply_nothing_twice_and_keep_each_aggregates_order() throws Exception {
    ChaosPlan plan =
        "release".equals(System.getProperty("inbox.chaos.mode"))
            ? ChaosPlan.release()
            : ChaosPlan.reduced();
    PgBinaries binaries = binaries();
    Path data = Path.of("/tmp", "inbox-chaos-" + ProcessHandle.current().pid());
    Path logs = Files.createDirectories(Path.of("target", "chaos-logs"));
    try (PgCluster cluster =
        PgCluster.create(
            binaries,
            data,
            FreePorts.from(55810, 55849),
            Map.of("max_connections", "200", "fsync", "off", "shared_buffers", "128MB"))) {
      cluster.start();
      ChaosReport report = new ChaosRun(cluster, plan, logs).run();
      System.out.println("chaos report (PostgreSQL " + binaries.major() + "): " + report);

      assertThat(report.violations()).as(report.toString()).isEmpty();
      assertThat(report.effects()).isEqualTo(plan.messages());
      assertThat(report.faults().values().stream().mapToInt(Integer::intValue).sum())
          .isEqualTo(plan.faults().size());
      assertThat(report.workersStarted()).isGreaterThan(plan.workers());
    }
  }

  /** Binaries of the test server's major version (15 in CI's second run), or a clear skip. */
  static PgBinaries binaries() {
    TestDatabase probe = TestPostgres.shared().newDatabase("chaos_probe");
    Optional<PgBinaries> found =
        PgBinaries.matching(probe.jdbcUrl(), probe.user(), probe.password());
    assumeTrue(
        found.isPresent(),
        "SKIP: no PostgreSQL server binaries (initdb, pg_ctl) of the test server's version; set "
            + PgBinaries.BIN_VARIABLE);
    return found.get();
  }
}
