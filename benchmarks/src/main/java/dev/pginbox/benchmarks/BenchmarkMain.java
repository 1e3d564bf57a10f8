package dev.pginbox.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs the benchmark scenarios and prints Markdown tables (also appended to the file given with
 * {@code --out}). The PostgreSQL is chosen like the tests' (INBOX_TEST_DATABASE_URL, Testcontainers,
 * else an embedded PostgreSQL 18 with synchronous_commit=on and 1 GB shared buffers).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar [--runs N] [--scale F] [--out FILE] [scenario...]
 * scenarios: produce consume consume-plain consume-ordered consume-partitioned consume-ordered-partitioned consume-ordered-automatic (--partitions N, default 32) consume-budget (byte budget off/on, interleaved) consume-ahead (claim ahead off/on, interleaved) consume-runs (several messages of an aggregate per batch off/on, interleaved) e2e mailroom (includes memory) delivery (SMTP to GreenMail;
 *   delivery-throughput and delivery-budget for one part only; delivery-aiosmtpd: the throughput part against
 *   aiosmtpd; not in the default set)
 *   operator (default: all)
 * peer-produce, peer-consume, peer-consume-ordered: our side of benchmarks/peers/run.sh, one producer
 *   or worker, --batch N (default 100) and --messages N (default 100,000 x scale)
 * --mailroom-jar PATH (default mailroom-app/target/mailroom-app.jar), --collector-jvm-flag FLAG (repeatable)
 * footprint: the distribution's bin/mailroom (--mailroom-dist PATH, default mailroom-app/target/mailroom/mailroom)
 * rebalance: how long a joining worker takes to hold its share of automatic partitions (not in the default set)
 * held-xmin: the Java workers consuming a steady flow while a REPEATABLE READ transaction holds the xmin
 *   horizon (HeldXminScenario: held.rate, held.workers, held.clean/hold/after; not in the default set)
 * soak: an hour of steady flow with retention on (SoakScenario: soak.rate, soak.workers, soak.duration,
 *   soak.window, soak.retention; not in the default set)
 * </pre>
 */
public final class BenchmarkMain {

  private BenchmarkMain() {}

  /** Batch size and message count of the peer-* scenarios. */
  private record PeerWorkload(int batch, int messages) {
    PeerWorkload {
      if (batch < 1 || messages < batch) {
        throw new IllegalArgumentException("--batch must be positive and --messages at least --batch");
      }
    }
  }

  public static void main(String[] args) throws Exception {
    int runs = 5;
    double scale = 1.0;
    Path out = null;
    Path mailroomJar = Path.of("mailroom-app/target/mailroom-app.jar");
    Path mailroomDist = Path.of("mailroom-app/target/mailroom/mailroom");
    List<String> collectorFlags = new ArrayList<>();
    List<String> scenarios = new ArrayList<>();
    int peerBatch = 100;
    Integer peerMessages = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--scale" -> scale = Double.parseDouble(args[++i]);
        case "--out" -> out = Path.of(args[++i]);
        case "--mailroom-jar" -> mailroomJar = Path.of(args[++i]);
        case "--mailroom-dist" -> mailroomDist = Path.of(args[++i]);
        case "--collector-jvm-flag" -> collectorFlags.add(args[++i]);
        case "--batch" -> peerBatch = Integer.parseInt(args[++i]);
        case "--messages" -> peerMessages = Integer.parseInt(args[++i]);
        case "--partitions" -> ConsumeScenario.automaticPartitions = Integer.parseInt(args[++i]);
        default -> scenarios.add(args[i]);
      }
    }
    if (scenarios.isEmpty()) {
      scenarios = Arrays.asList("produce", "consume", "e2e", "mailroom", "operator");
    }
    Report report = new Report(System.out, out);
    report.line("Server: " + BenchDatabase.create("probe").describeServer());
    report.line("Client: " + Runtime.getRuntime().availableProcessors() + " cores, Java "
        + System.getProperty("java.version") + ", runs=" + runs + ", scale=" + scale);
    PeerWorkload peer = new PeerWorkload(peerBatch, peerMessages != null ? peerMessages : (int) (100_000 * scale));
    for (String scenario : scenarios) {
      try (LoadAverage load = LoadAverage.during()) {
        runScenario(scenario, report, runs, scale, mailroomJar, mailroomDist, collectorFlags, peer);
        report.line("");
        report.line("Load during " + scenario + ": " + load.summary());
      }
    }
    System.exit(0);
  }

  private static void runScenario(String scenario, Report report, int runs, double scale,
      Path mailroomJar, Path mailroomDist, List<String> collectorFlags, PeerWorkload peer) throws Exception {
    switch (scenario) {
      case "produce" -> ProduceScenario.run(report, runs, scale, false);
      case "produce-as-producer" -> ProduceScenario.run(report, runs, scale, true);
      case "consume" -> {
        ConsumeScenario.run(report, runs, scale, List.of(ConsumeScenario.Variant.PLAIN), new int[] {1, 10, 100, 1000});
        ConsumeScenario.run(report, runs, scale, List.of(ConsumeScenario.Variant.PRIORITY,
            ConsumeScenario.Variant.ORDERED, ConsumeScenario.Variant.PARTITIONED), new int[] {100, 1000});
      }
      case "consume-plain" -> ConsumeScenario.run(report, runs, scale,
          List.of(ConsumeScenario.Variant.PLAIN), new int[] {100, 1000});
      case "consume-ordered" -> ConsumeScenario.run(report, runs, scale,
          List.of(ConsumeScenario.Variant.ORDERED), new int[] {100, 1000});
      case "consume-partitioned" -> ConsumeScenario.run(report, runs, scale,
          List.of(ConsumeScenario.Variant.PARTITIONED), new int[] {100, 1000});
      case "consume-ordered-partitioned" -> ConsumeScenario.run(report, runs, scale,
          List.of(ConsumeScenario.Variant.ORDERED_PARTITIONED), new int[] {100, 1000});
      case "consume-ordered-automatic" -> ConsumeScenario.run(report, runs, scale,
          List.of(ConsumeScenario.Variant.ORDERED_AUTOMATIC), new int[] {100, 1000});
      case "consume-budget" -> ConsumeScenario.runBudget(report, runs, scale);
      case "consume-ahead" -> ConsumeScenario.runClaimAhead(report, runs, scale);
      case "consume-runs" -> ConsumeScenario.runAggregateRuns(report, runs, scale);
      case "consume-profile" -> ConsumeProfileScenario.run(report, runs, scale);
      case "rebalance" -> RebalanceScenario.run(report, runs);
      case "e2e" -> EndToEndScenario.run(report, scale);
      case "held-xmin" -> HeldXminScenario.run(report, scale);
      case "soak" -> SoakScenario.run(report, scale);
      case "mailroom", "memory" -> MailroomScenario.run(report, runs, scale, mailroomJar, collectorFlags);
      case "footprint" -> FootprintScenario.run(report, runs, scale, mailroomDist);
      case "delivery" -> DeliveryScenario.run(report, runs, scale, mailroomJar, collectorFlags, true);
      case "delivery-budget" -> DeliveryScenario.run(report, runs, scale, mailroomJar, collectorFlags, false);
      case "delivery-throughput" -> DeliveryScenario.run(report, runs, scale, mailroomJar, collectorFlags,
          true, false, false);
      case "delivery-aiosmtpd" -> DeliveryScenario.run(report, runs, scale, mailroomJar, collectorFlags,
          true, false, true);
      case "operator" -> OperatorFunctionsScenario.run(report, scale < 1 ? new int[] {10_000, 100_000}
          : new int[] {10_000, 1_000_000});
      case "peer-produce" -> PeerScenario.produce(report, peer.batch(), peer.messages());
      case "peer-consume" -> PeerScenario.consume(report, peer.batch(), peer.messages(), false);
      case "peer-consume-ordered" -> PeerScenario.consume(report, peer.batch(), peer.messages(), true);
      default -> throw new IllegalArgumentException("unknown scenario " + scenario);
    }
  }
}
