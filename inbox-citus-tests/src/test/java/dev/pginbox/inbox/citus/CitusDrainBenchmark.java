package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Not a test: measures how fast shard-by-shard workers drain a distributed inbox with one worker
 * node, then with two after a rebalance, and the CPU time per message of the servers and of the
 * workers' JVM (docs/scale-out.md, "Benchmark"). Runs only with {@code
 * -Dinbox.citus.benchmark=true}; prints its numbers.
 */
class CitusDrainBenchmark {

  private static final int AGGREGATES = 500;
  private static final int ROUNDS = 20;
  private static final int WORKERS = 4;

  @Test
  void drain_with_one_then_two_worker_nodes() throws Exception {
    assumeTrue(
        Boolean.getBoolean("inbox.citus.benchmark"), "benchmark: -Dinbox.citus.benchmark=true");
    assumeTrue(CitusCluster.binariesWithCitus().isPresent(), "SKIP: Citus is not installed");
    try (CitusCluster cluster = CitusCluster.start(CitusCluster.binariesWithCitus().get(), 1)) {
      dev.pginbox.inbox.postgres.PostgresInboxManager.create(
              SharedCluster.dataSource(cluster.coordinatorUrl()))
          .install();
      CitusCluster.sql(cluster.coordinatorUrl(), "CREATE SCHEMA app");
      report("1 worker node", drain(cluster));
      cluster.addWorkerNode();
      try (Connection c = DriverManager.getConnection(cluster.coordinatorUrl());
          Statement s = c.createStatement()) {
        s.execute("SELECT rebalance_table_shards(shard_transfer_mode => 'block_writes')");
      }
      report("2 worker nodes", drain(cluster));
    }
  }

  private record Result(long messages, long nanos, long serverTicks, long jvmNanos) {}

  private static Result drain(CitusCluster cluster) throws Exception {
    Scenario s = Scenario.distributed(cluster, "bench", AGGREGATES);
    s.send(ROUNDS);
    long ticks = cluster.serverCpuTicks();
    long jvm = jvmCpuNanos();
    long start = System.nanoTime();
    List<ShardWorker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      workers.add(
          new ShardWorker(
                  cluster.coordinatorUrl(),
                  new ShardWorker.Options(
                      s.inbox, "b" + i, 100, Duration.ofSeconds(5), Duration.ofMillis(20)),
                  s.handler())
              .start());
    }
    await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> s.processedMessages() == s.sent());
    long nanos = System.nanoTime() - start;
    long used = cluster.serverCpuTicks() - ticks;
    long jvmUsed = jvmCpuNanos() - jvm;
    for (ShardWorker w : workers) {
      w.close();
    }
    s.assertEveryMessageHandledOnceInOrder();
    assertThat(used).isPositive();
    return new Result(s.sent(), nanos, used, jvmUsed);
  }

  private static void report(String setup, Result r) {
    double seconds = r.nanos() / 1e9;
    // USER_HZ is 100 on Linux: a tick is 10 ms of one core.
    System.out.printf(
        "citus drain, %s: %d messages in %.1f s = %.0f messages/s; CPU per message: servers %.0f us,"
            + " worker JVM %.0f us; machine load average %.1f%n",
        setup,
        r.messages(),
        seconds,
        r.messages() / seconds,
        r.serverTicks() * 10_000.0 / r.messages(),
        r.jvmNanos() / 1000.0 / r.messages(),
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
