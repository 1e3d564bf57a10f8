package dev.pginbox.inbox.citus;

import dev.pginbox.inbox.chaos.FreePorts;
import dev.pginbox.inbox.chaos.PgBinaries;
import dev.pginbox.inbox.chaos.PgCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Citus cluster on 127.0.0.1: a coordinator and worker nodes, each a PostgreSQL server of its own
 * started with {@code initdb} and {@code pg_ctl} (as the {@code postgres} user when running as
 * root), with Citus preloaded and the extension created in database {@code postgres}. Trust
 * authentication on loopback serves the connections between the nodes.
 */
public final class CitusCluster implements AutoCloseable {

  /** The PostgreSQL whose Citus the suite uses; {@code INBOX_CITUS_PG_BIN} overrides it. */
  public static final String BIN_VARIABLE = "INBOX_CITUS_PG_BIN";

  private static final Path DEFAULT_BIN = Path.of("/usr/lib/postgresql/15/bin");

  private final PgBinaries binaries;
  private final Path root;
  private final PgCluster coordinator;
  private final List<PgCluster> workers = new ArrayList<>();

  private CitusCluster(PgBinaries binaries, Path root, PgCluster coordinator) {
    this.binaries = binaries;
    this.root = root;
    this.coordinator = coordinator;
  }

  /**
   * The server binaries, when Citus is installed for them ({@code citus.so} in their library
   * directory); empty otherwise (build it with {@code ../shared/citus/build.sh} or see
   * docs/scale-out.md).
   */
  public static Optional<PgBinaries> binariesWithCitus() {
    String configured = System.getenv(BIN_VARIABLE);
    Path bin = configured == null || configured.isBlank() ? DEFAULT_BIN : Path.of(configured);
    PgBinaries binaries = new PgBinaries(bin, 15);
    boolean citus = Files.isRegularFile(bin.getParent().resolve("lib").resolve("citus.so"));
    return citus && binaries.has("postgres", "initdb", "pg_ctl")
        ? Optional.of(binaries)
        : Optional.empty();
  }

  /** Starts a coordinator and {@code workerNodes} worker nodes, all registered. */
  public static CitusCluster start(PgBinaries binaries, int workerNodes) throws SQLException {
    Path root =
        Path.of(
            System.getProperty("java.io.tmpdir"), "inbox-citus-" + ProcessHandle.current().pid());
    CitusCluster cluster = new CitusCluster(binaries, root, node(binaries, root, "coordinator"));
    try {
      cluster.sql(
          cluster.coordinatorUrl(),
          "SELECT citus_set_coordinator_host('127.0.0.1', " + cluster.coordinator.port() + ")");
      for (int i = 0; i < workerNodes; i++) {
        cluster.addWorkerNode();
      }
      return cluster;
    } catch (SQLException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * Starts one more worker node and adds it to the cluster (it holds no shards until a rebalance).
   */
  public PgCluster addWorkerNode() throws SQLException {
    PgCluster worker = node(binaries, root, "worker" + workers.size());
    workers.add(worker);
    sql(coordinatorUrl(), "SELECT citus_add_node('127.0.0.1', " + worker.port() + ")");
    return worker;
  }

  public String coordinatorUrl() {
    return coordinator.jdbcUrl("postgres");
  }

  public List<PgCluster> workerNodes() {
    return List.copyOf(workers);
  }

  /** The URL of the node listening on {@code port} (as {@code inbox.inbox_shards} names it). */
  public static String url(String host, int port) {
    return "jdbc:postgresql://" + host + ":" + port + "/postgres?user=postgres";
  }

  /**
   * CPU time the cluster's servers have used, in clock ticks (10 ms on Linux): each postmaster's
   * own, that of the backends it has reaped, and that of its live children ({@code /proc}). For CPU
   * per message on a machine that also runs other things.
   */
  public long serverCpuTicks() throws java.io.IOException {
    List<Long> postmasters = new ArrayList<>();
    List<String> names = new ArrayList<>(List.of("coordinator"));
    for (int i = 0; i < workers.size(); i++) {
      names.add("worker" + i);
    }
    for (String name : names) {
      postmasters.add(
          Long.parseLong(
              Files.readAllLines(root.resolve(name).resolve("postmaster.pid")).get(0).trim()));
    }
    long ticks = 0;
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        String[] f = procStat(proc);
        if (f.length < 17) {
          continue;
        }
        long pid = Long.parseLong(proc.getFileName().toString());
        if (postmasters.contains(pid)) {
          ticks +=
              Long.parseLong(f[11])
                  + Long.parseLong(f[12])
                  + Long.parseLong(f[13])
                  + Long.parseLong(f[14]);
        } else if (postmasters.contains(Long.parseLong(f[1]))) {
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
      }
    }
    return ticks;
  }

  /** The fields of /proc/PID/stat after the command name: state, ppid, ... (empty when gone). */
  private static String[] procStat(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    } catch (java.io.IOException | RuntimeException e) {
      return new String[0];
    }
  }

  /** Runs statements on one node, each in its own transaction. */
  public static void sql(String url, String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  @Override
  public void close() {
    for (PgCluster worker : workers) {
      worker.close();
    }
    coordinator.close();
    try {
      Files.deleteIfExists(root);
    } catch (java.io.IOException e) {
      // a leftover empty directory under the temporary directory
    }
  }

  private static PgCluster node(PgBinaries binaries, Path root, String name) throws SQLException {
    int port = FreePorts.from(27000, 27999);
    PgCluster node =
        PgCluster.create(
            binaries,
            root.resolve(name),
            port,
            Map.of(
                "shared_preload_libraries", "citus",
                "max_connections", "200",
                "fsync", "off",
                "max_prepared_transactions", "100",
                "wal_level", "logical",
                "citus.log_distributed_deadlock_detection", "off"));
    node.start();
    sql(node.jdbcUrl("postgres"), "CREATE EXTENSION citus");
    return node;
  }
}
