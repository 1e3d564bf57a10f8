package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Not a test: measures how fast shard-by-shard workers drain a distributed inbox with one worker
 * node, then with two after a rebalance, and the machine's CPU time per message (docs/scale-out.md,
 * "Benchmark"). Runs only with {@code -Dinbox.citus.benchmark=true}; prints its numbers.
 */
class CitusDrainBenchmark {

  private static final int AGGREGATES = 500;
  private static final int ROUNDS = 40;
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

  private record Result(long messages, long nanos, long cpuTicks) {}

  private static Result drain(CitusCluster cluster) throws Exception {
    Scenario s = Scenario.distributed(cluster, "bench", AGGREGATES);
    s.send(ROUNDS);
    long ticks = busyTicks();
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
    long used = busyTicks() - ticks;
    for (ShardWorker w : workers) {
      w.close();
    }
    s.assertEveryMessageHandledOnceInOrder();
    assertThat(used).isPositive();
    return new Result(s.sent(), nanos, used);
  }

  private static void report(String setup, Result r) {
    double seconds = r.nanos() / 1e9;
    // USER_HZ is 100 on Linux: a tick is 10 ms of one core.
    double cpuMicrosPerMessage = r.cpuTicks() * 10_000.0 / r.messages();
    System.out.printf(
        "citus drain, %s: %d messages in %.1f s = %.0f messages/s, %.0f us CPU per message (whole machine)%n",
        setup, r.messages(), seconds, r.messages() / seconds, cpuMicrosPerMessage);
  }

  /** Busy CPU ticks of the whole machine since boot (/proc/stat: all but idle and iowait). */
  private static long busyTicks() throws Exception {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i = 1; i < f.length && i <= 8; i++) {
      if (i != 4 && i != 5) {
        busy += Long.parseLong(f[i]);
      }
    }
    return busy;
  }
}
