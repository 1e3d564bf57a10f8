package dev.pginbox.benchmarks;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Scenario 2: a backlog of pre-inserted messages drained by 1, 2 and 4 workers (each its own {@link
 * InboxWorker} with one processor, as separate processes would be) with a no-op batch handler;
 * plain, with priority, with per-aggregate ordering (1,000 aggregates), with static partitions
 * (worker i of n), and ordered with static or automatic partitions (the drain starts once the
 * workers' leases are balanced: every worker holds its share of the 32 partitions).
 */
final class ConsumeScenario {

  enum Variant {
    PLAIN,
    PRIORITY,
    ORDERED,
    PARTITIONED,
    ORDERED_PARTITIONED,
    ORDERED_AUTOMATIC;

    boolean ordered() {
      return this == ORDERED || this == ORDERED_PARTITIONED || this == ORDERED_AUTOMATIC;
    }

    PartitionAssignment partitions(int worker, int workers) {
      return switch (this) {
        case PARTITIONED, ORDERED_PARTITIONED -> PartitionAssignment.of(worker, workers);
        case ORDERED_AUTOMATIC -> PartitionAssignment.automatic(automaticPartitions);
        default -> PartitionAssignment.all();
      };
    }
  }

  /** Partitions of the automatic variant ({@code --partitions}). */
  static int automaticPartitions = PartitionAssignment.Automatic.DEFAULT_PARTITIONS;

  static void run(Report report, int runs, double scale, List<Variant> variants, int[] batchSizes)
      throws Exception {
    report.section(
        "Consume: drain a backlog, no-op handler (messages/s, median of runs, min..max; "
            + "claims from pg_stat_user_functions with track_functions = 'pl')",
        "| variant | batch | workers | messages | messages/s | claims per run | messages per claim | ms per claim "
            + "| client CPU us per message | server CPU us per message | buffer reads per message | machine busy "
            + "| load average after |");
    BenchDatabase db = BenchDatabase.create("consume");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    for (Variant variant : variants) {
      String inbox = "consume_" + variant.name().toLowerCase();
      manager.createInbox(inbox);
      if (variant == Variant.PRIORITY) {
        manager.enablePriority(
            inbox, "event_type", java.util.Map.of("order.cancelled", 1, "order.placed", 2));
      }
      if (variant.ordered()) {
        manager.enableOrdering(inbox);
      }
      for (int batch : batchSizes) {
        for (int workers : new int[] {1, 2, 4}) {
          int messages = (int) (scale * (batch == 1 ? 10_000 : batch == 10 ? 30_000 : 100_000));
          Measurements rate = new Measurements();
          Measurements client = new Measurements();
          Measurements server = new Measurements();
          Measurements busy = new Measurements();
          Measurements reads = new Measurements();
          ClaimCalls claims = ClaimCalls.NONE;
          for (int run = -1; run < runs; run++) {
            ClaimCalls before = ClaimCalls.read(db, inbox);
            BacklogDrain.Drain d = drain(db, inbox, variant, batch, workers, messages);
            if (run >= 0) {
              rate.add(d.rate());
              client.add(d.cpu().clientNanos());
              server.add(d.cpu().serverNanos());
              busy.add(d.cpu().machineBusy());
              reads.add(d.bufferReads());
              claims = claims.plus(ClaimCalls.read(db, inbox).minus(before));
            }
          }
          report.row(
              variant.name().toLowerCase(),
              batch,
              workers,
              String.format("%,d", messages),
              rate.summary(),
              claims.perRun(runs),
              claims.messagesPerCall((long) messages * runs),
              claims.msPerCall(),
              CpuClock.perMessage((long) client.median(), messages),
              CpuClock.perMessage((long) server.median(), messages),
              String.format("%.1f", reads.median() / messages),
              busy.median() < 0 ? "-" : String.format("%.0f %%", 100 * busy.median()),
              LoadAverage.now());
        }
      }
    }
  }

  /**
   * The claim's byte budget (WorkerOptions.maxBatchBytes) on and off: the default budget, which
   * never binds on these ~100-byte payloads, against NO_BATCH_BYTE_LIMIT (the claim without the
   * running sum).
   */
  static void runBudget(Report report, int runs, double scale) throws Exception {
    runPaired(
        report,
        runs,
        scale,
        "budget",
        "the byte budget",
        "budget off",
        "budget on (16 MiB)",
        b -> b.maxBatchBytes(WorkerOptions.NO_BATCH_BYTE_LIMIT),
        b -> b);
  }

  /** Claim ahead (WorkerOptions.claimAhead) off and on. */
  static void runClaimAhead(Report report, int runs, double scale) throws Exception {
    runPaired(
        report,
        runs,
        scale,
        "ahead",
        "claim ahead",
        "claim ahead off",
        "claim ahead on",
        b -> b,
        b -> b.claimAhead(true));
  }

  /**
   * One option off and on, plain and ordered, batch 100 and 1,000, 1 and 2 workers, interleaved run
   * by run (off, on, on, off, ...) so that both see the same machine load.
   */
  private static void runPaired(
      Report report,
      int runs,
      double scale,
      String name,
      String what,
      String offHeader,
      String onHeader,
      UnaryOperator<WorkerOptions.Builder> off,
      UnaryOperator<WorkerOptions.Builder> on)
      throws Exception {
    report.section(
        "Consume with " + what + " off and on, interleaved (messages/s, median of runs, min..max)",
        "| variant | batch | workers | messages | "
            + offHeader
            + " | "
            + onHeader
            + " | on / off |");
    BenchDatabase db = BenchDatabase.create("consume_" + name);
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    for (Variant variant : List.of(Variant.PLAIN, Variant.ORDERED)) {
      String inbox = name + "_" + variant.name().toLowerCase();
      manager.createInbox(inbox);
      if (variant == Variant.ORDERED) {
        manager.enableOrdering(inbox);
      }
      for (int batch : new int[] {100, 1000}) {
        for (int workers : new int[] {1, 2}) {
          int messages = (int) (scale * 100_000);
          Measurements offRates = new Measurements();
          Measurements onRates = new Measurements();
          for (int run = -1; run < runs; run++) {
            boolean offFirst = run % 2 == 0;
            double first =
                drain(db, inbox, variant, batch, workers, messages, offFirst ? off : on).rate();
            double second =
                drain(db, inbox, variant, batch, workers, messages, offFirst ? on : off).rate();
            if (run >= 0) {
              offRates.add(offFirst ? first : second);
              onRates.add(offFirst ? second : first);
            }
          }
          report.row(
              variant.name().toLowerCase(),
              batch,
              workers,
              String.format("%,d", messages),
              offRates.summary(),
              onRates.summary(),
              String.format("%.3f", onRates.median() / offRates.median()));
        }
      }
    }
  }

  /**
   * Several messages of an aggregate per batch (WorkerOptions.messagesPerAggregate) off and on,
   * interleaved run by run, with a no-op per-message handler: one worker on an ordered backlog
   * spread over 1, 10 and 1,000 aggregates at batch 100 and 1,000; then 1, 2 and 4 workers on
   * 100,000 messages over 1,000 aggregates at batch 1,000, where a spreading worker's share of the
   * heads is smaller than its batch.
   */
  static void runAggregateRuns(Report report, int runs, double scale) throws Exception {
    BenchDatabase db = BenchDatabase.create("consume_runs");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    String inbox = "runs_ordered";
    manager.createInbox(inbox);
    manager.enableOrdering(inbox);
    String header =
        "| messages | one message per aggregate | up to a batch per aggregate | on / off |";
    report.section(
        "Ordered consume with several messages of an aggregate per batch, one worker, interleaved "
            + "(messages/s, median of runs, min..max)",
        "| aggregates | batch " + header);
    for (int aggregates : new int[] {1, 10, 1000}) {
      for (int batch : new int[] {100, 1000}) {
        List<Object> cells = new ArrayList<>(List.of(String.format("%,d", aggregates), batch));
        cells.addAll(
            aggregateRunsPair(db, inbox, runs, aggregates, batch, 1, (int) (scale * 20_000)));
        report.row(cells.toArray());
      }
    }
    report.section(
        "The same with 1, 2 and 4 workers, 1,000 aggregates, batch 1,000 "
            + "(messages/s, median of runs, min..max)",
        "| workers " + header);
    for (int workers : new int[] {1, 2, 4}) {
      List<Object> cells = new ArrayList<>(List.of(workers));
      cells.addAll(
          aggregateRunsPair(db, inbox, runs, 1000, 1000, workers, (int) (scale * 100_000)));
      report.row(cells.toArray());
    }
  }

  /** One row's cells: messages, the rates off and on, on / off. */
  private static List<Object> aggregateRunsPair(
      BenchDatabase db,
      String inbox,
      int runs,
      int aggregates,
      int batch,
      int workers,
      int messages)
      throws Exception {
    BacklogDrain.Shape shape = new BacklogDrain.Shape(aggregates, true);
    UnaryOperator<WorkerOptions.Builder> off = b -> b;
    UnaryOperator<WorkerOptions.Builder> on = b -> b.messagesPerAggregate(batch);
    Measurements offRates = new Measurements();
    Measurements onRates = new Measurements();
    for (int run = -1; run < runs; run++) {
      boolean offFirst = run % 2 == 0;
      double first =
          BacklogDrain.drain(
                  db, inbox, Variant.ORDERED, batch, workers, messages, shape, offFirst ? off : on)
              .rate();
      double second =
          BacklogDrain.drain(
                  db, inbox, Variant.ORDERED, batch, workers, messages, shape, offFirst ? on : off)
              .rate();
      if (run >= 0) {
        offRates.add(offFirst ? first : second);
        onRates.add(offFirst ? second : first);
      }
    }
    return List.of(
        String.format("%,d", messages),
        offRates.summary(),
        onRates.summary(),
        String.format("%.2f", onRates.median() / offRates.median()));
  }

  static BacklogDrain.Drain drain(
      BenchDatabase db, String inbox, Variant variant, int batch, int workers, int messages)
      throws Exception {
    return BacklogDrain.drain(
        db, inbox, variant, batch, workers, messages, BacklogDrain.Shape.DEFAULT, b -> b);
  }

  private static BacklogDrain.Drain drain(
      BenchDatabase db,
      String inbox,
      Variant variant,
      int batch,
      int workers,
      int messages,
      UnaryOperator<WorkerOptions.Builder> tuning)
      throws Exception {
    return BacklogDrain.drain(
        db, inbox, variant, batch, workers, messages, BacklogDrain.Shape.DEFAULT, tuning);
  }
}
