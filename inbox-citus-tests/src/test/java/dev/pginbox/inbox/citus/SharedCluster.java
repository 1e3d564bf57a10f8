package dev.pginbox.inbox.citus;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pginbox.inbox.chaos.PgBinaries;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The suite's one Citus cluster (a coordinator and two worker nodes, the inbox SQL API installed),
 * started by the first test that asks and stopped when the JVM ends; tests are skipped with a
 * message where Citus is not installed.
 */
final class SharedCluster {

  private static CitusCluster cluster;

  private SharedCluster() {}

  static synchronized CitusCluster get() throws Exception {
    Optional<PgBinaries> binaries = CitusCluster.binariesWithCitus();
    assumeTrue(
        binaries.isPresent(),
        "SKIP: Citus is not installed for /usr/lib/postgresql/15 (no lib/citus.so); build it with"
            + " ../shared/citus/build.sh as root, or set "
            + CitusCluster.BIN_VARIABLE
            + " (docs/scale-out.md, \"Testing\")");
    if (cluster == null) {
      CitusCluster started = CitusCluster.start(binaries.get(), 2);
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "citus-cluster-stop"));
      PostgresInboxManager.create(dataSource(started.coordinatorUrl())).install();
      CitusCluster.sql(started.coordinatorUrl(), "CREATE SCHEMA app");
      cluster = started;
    }
    return cluster;
  }

  static PGSimpleDataSource dataSource(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    return ds;
  }
}
