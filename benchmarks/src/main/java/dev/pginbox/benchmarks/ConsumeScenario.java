package dev.pginbox.benchmarks;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Scenario 2: a backlog of pre-inserted messages drained by 1, 2 and 4 workers (each its own
 * {@link InboxWorker} with one processor, as separate processes would be) with a no-op batch
 * handler; plain, with priority, with per-aggregate ordering (1,000 aggregates), with static
 * partitions (worker i of n), and ordered with static or automatic partitions (the drain starts
 * once the workers' leases are balanced: every worker holds its share of the 32 partitions).
 */
final class ConsumeScenario {

  enum Variant {
    PLAIN, PRIORITY, ORDERED, PARTITIONED, ORDERED_PARTITIONED, ORDERED_AUTOMATIC;

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
    report.section("Consume: drain a backlog, no-op handler (messages/s, median of runs, min..max; "
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
        manager.enablePriority(inbox, "event_type", java.util.Map.of("order.cancelled", 1, "order.placed", 2));
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
            Drain d = drain(db, inbox, variant, batch, workers, messages);
            if (run >= 0) {
              rate.add(d.rate());
              client.add(d.cpu().clientNanos());
              server.add(d.cpu().serverNanos());
              busy.add(d.cpu().machineBusy());
              reads.add(d.bufferReads());
              claims = claims.plus(ClaimCalls.read(db, inbox).minus(before));
            }
          }
          report.row(variant.name().toLowerCase(), batch, workers, String.format("%,d", messages), rate.summary(),
              claims.perRun(runs), claims.messagesPerCall((long) messages * runs), claims.msPerCall(),
              CpuClock.perMessage((long) client.median(), messages), CpuClock.perMessage((long) server.median(), messages),
              String.format("%.1f", reads.median() / messages),
              busy.median() < 0 ? "-" : String.format("%.0f %%", 100 * busy.median()), LoadAverage.now());
        }
      }
    }
  }

  /**
   * Calls of claim_&lt;inbox&gt; and the server time they took, from pg_stat_user_functions (zeros
   * unless the server runs with track_functions = 'pl'): how many claims a drain took, how full
   * they came back, and what one cost.
   */
  record ClaimCalls(long calls, double totalMs) {
    static final ClaimCalls NONE = new ClaimCalls(0, 0);

    static ClaimCalls read(BenchDatabase db, String inbox) {
      // A worker's backend reports its counts when it exits, shortly after its connection closes.
      ClaimCalls last = null;
      for (int i = 0; i < 20; i++) {
        ClaimCalls now = db.jdbi.withHandle(h -> h.createQuery(
                "SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(total_time), 0) AS ms "
                    + "FROM pg_stat_user_functions WHERE schemaname = 'inbox' AND funcname = :f")
            .bind("f", "claim_" + inbox)
            .map((rs, ctx) -> new ClaimCalls(rs.getLong("calls"), rs.getDouble("ms")))
            .one());
        if (now.equals(last)) {
          return now;
        }
        last = now;
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return now;
        }
      }
      return last;
    }

    ClaimCalls plus(ClaimCalls o) {
      return new ClaimCalls(calls + o.calls, totalMs + o.totalMs);
    }

    ClaimCalls minus(ClaimCalls o) {
      return new ClaimCalls(calls - o.calls, totalMs - o.totalMs);
    }

    String perRun(int runs) {
      return calls == 0 ? "-" : String.format("%,d", calls / runs);
    }

    String messagesPerCall(long messages) {
      return calls == 0 ? "-" : String.format("%.0f", (double) messages / calls);
    }

    String msPerCall() {
      return calls == 0 ? "-" : String.format("%.1f", totalMs / calls);
    }
  }

  /**
   * The claim's byte budget (WorkerOptions.maxBatchBytes) on and off: the default budget, which
   * never binds on these ~100-byte payloads, against NO_BATCH_BYTE_LIMIT (the claim without the
   * running sum).
   */
  static void runBudget(Report report, int runs, double scale) throws Exception {
    runPaired(report, runs, scale, "budget", "the byte budget", "budget off", "budget on (16 MiB)",
        b -> b.maxBatchBytes(WorkerOptions.NO_BATCH_BYTE_LIMIT), b -> b);
  }

  /** Claim ahead (WorkerOptions.claimAhead) off and on. */
  static void runClaimAhead(Report report, int runs, double scale) throws Exception {
    runPaired(report, runs, scale, "ahead", "claim ahead", "claim ahead off", "claim ahead on",
        b -> b, b -> b.claimAhead(true));
  }

  /**
   * One option off and on, plain and ordered, batch 100 and 1,000, 1 and 2 workers, interleaved run
   * by run (off, on, on, off, ...) so that both see the same machine load.
   */
  private static void runPaired(Report report, int runs, double scale, String name, String what, String offHeader,
      String onHeader, UnaryOperator<WorkerOptions.Builder> off, UnaryOperator<WorkerOptions.Builder> on)
      throws Exception {
    report.section("Consume with " + what + " off and on, interleaved (messages/s, median of runs, min..max)",
        "| variant | batch | workers | messages | " + offHeader + " | " + onHeader + " | on / off |");
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
            double first = drain(db, inbox, variant, batch, workers, messages, offFirst ? off : on).rate();
            double second = drain(db, inbox, variant, batch, workers, messages, offFirst ? on : off).rate();
            if (run >= 0) {
              offRates.add(offFirst ? first : second);
              onRates.add(offFirst ? second : first);
            }
          }
          report.row(variant.name().toLowerCase(), batch, workers, String.format("%,d", messages),
              offRates.summary(), onRates.summary(), String.format("%.3f", onRates.median() / offRates.median()));
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
    String header = "| messages | one message per aggregate | up to a batch per aggregate | on / off |";
    report.section("Ordered consume with several messages of an aggregate per batch, one worker, interleaved "
            + "(messages/s, median of runs, min..max)",
        "| aggregates | batch " + header);
    for (int aggregates : new int[] {1, 10, 1000}) {
      for (int batch : new int[] {100, 1000}) {
        List<Object> cells = new ArrayList<>(List.of(String.format("%,d", aggregates), batch));
        cells.addAll(aggregateRunsPair(db, inbox, runs, aggregates, batch, 1, (int) (scale * 20_000)));
        report.row(cells.toArray());
      }
    }
    report.section("The same with 1, 2 and 4 workers, 1,000 aggregates, batch 1,000 "
            + "(messages/s, median of runs, min..max)",
        "| workers " + header);
    for (int workers : new int[] {1, 2, 4}) {
      List<Object> cells = new ArrayList<>(List.of(workers));
      cells.addAll(aggregateRunsPair(db, inbox, runs, 1000, 1000, workers, (int) (scale * 100_000)));
      report.row(cells.toArray());
    }
  }

  /** One row's cells: messages, the rates off and on, on / off. */
  private static List<Object> aggregateRunsPair(BenchDatabase db, String inbox, int runs, int aggregates, int batch,
      int workers, int messages) throws Exception {
    Shape shape = new Shape(aggregates, true);
    UnaryOperator<WorkerOptions.Builder> off = b -> b;
    UnaryOperator<WorkerOptions.Builder> on = b -> b.messagesPerAggregate(batch);
    Measurements offRates = new Measurements();
    Measurements onRates = new Measurements();
    for (int run = -1; run < runs; run++) {
      boolean offFirst = run % 2 == 0;
      double first = drain(db, inbox, Variant.ORDERED, batch, workers, messages, shape, offFirst ? off : on).rate();
      double second = drain(db, inbox, Variant.ORDERED, batch, workers, messages, shape, offFirst ? on : off).rate();
      if (run >= 0) {
        offRates.add(offFirst ? first : second);
        onRates.add(offFirst ? second : first);
      }
    }
    return List.of(String.format("%,d", messages), offRates.summary(), onRates.summary(),
        String.format("%.2f", onRates.median() / offRates.median()));
  }

  /**
   * The backlog's aggregates (message g belongs to aggregate g mod {@code aggregates}) and whether
   * the workers run a per-message handler instead of a batch handler.
   */
  record Shape(int aggregates, boolean perMessage) {
    static final Shape DEFAULT = new Shape(1000, false);
  }

  /**
   * A drain's rate (messages/s), the CPU its timed window used, and the pages of shared buffers the
   * server read from the backlog's insert to the workers' exit (their start-up, claims, commits and
   * the wait for the last commit).
   */
  record Drain(double rate, CpuClock.Reading cpu, long bufferReads) {}

  static Drain drain(BenchDatabase db, String inbox, Variant variant, int batch, int workers, int messages)
      throws Exception {
    return drain(db, inbox, variant, batch, workers, messages, Shape.DEFAULT, b -> b);
  }

  private static Drain drain(BenchDatabase db, String inbox, Variant variant, int batch, int workers, int messages,
      UnaryOperator<WorkerOptions.Builder> tuning) throws Exception {
    return drain(db, inbox, variant, batch, workers, messages, Shape.DEFAULT, tuning);
  }

  /** {@code tuning}: applied to each worker's options last. */
  private static Drain drain(BenchDatabase db, String inbox, Variant variant, int batch, int workers, int messages,
      Shape shape, UnaryOperator<WorkerOptions.Builder> tuning) throws Exception {
    db.executeAndReport("TRUNCATE inbox." + inbox,
        ("INSERT INTO inbox.%s (event_id, event_type, source, aggregate_id, payload) "
            + "SELECT 'm' || g, CASE WHEN g %% 10 = 0 THEN 'order.cancelled' ELSE 'order.placed' END, 'bench', "
            + "'agg-' || (g %% %d), '%s' FROM generate_series(1, %d) g")
            .formatted(inbox, shape.aggregates(), Payloads.PAYLOAD, messages),
        "VACUUM ANALYZE inbox." + inbox);
    long readsBefore = db.bufferReads();
    CountDownLatch drained = new CountDownLatch(1);
    AtomicLong handled = new AtomicLong();
    List<InboxWorker> started = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    StartGate gate = new StartGate();
    Semaphore changes = new Semaphore(0); // a worker's partitions or peers changed
    Map<String, Integer> places = new ConcurrentHashMap<>(); // worker id -> its number of peers
    CpuClock clock = CpuClock.of(db);
    double rate;
    CpuClock.Reading cpu;
    try {
      for (int w = 0; w < workers; w++) {
        WorkerOptions options = tuning.apply(WorkerOptions.builder(inbox)
            .batchSize(batch)
            .pollInterval(Duration.ofMillis(100))
            .partitions(variant.partitions(w, workers))
            .retention(false))
            .build();
        // Own connections, as a separate process would have (the pool is for producers).
        String id = inbox + "-" + DRAINS.incrementAndGet() + "-" + w;
        PostgresInboxWorker.Builder builder = PostgresInboxWorker.builder(db.database.dataSource(), options)
            .workerId(id);
        if (shape.perMessage()) {
          builder.handler((message, tx) -> {
            if (handled.incrementAndGet() >= messages) {
              drained.countDown();
            }
            return Outcome.processed();
          });
        } else {
          builder.batchHandler((claimed, tx) -> {
            if (handled.addAndGet(claimed.size()) >= messages) {
              drained.countDown();
            }
            return BatchResult.allProcessed();
          });
        }
        InboxWorker worker = builder
            .claimPermits(gate)
            .listener(new WorkerListener() {
              @Override
              public void onPartitionsChanged(Set<Integer> held, int partitions) {
                changes.release();
              }

              @Override
              public void onPeersChanged(int rank, int peers) {
                places.put(id, rank < 0 ? 0 : peers);
                changes.release();
              }
            })
            .build();
        worker.start();
        started.add(worker);
        ids.add(id);
      }
      if (variant == Variant.ORDERED_AUTOMATIC) {
        awaitBalancedLeases(started, changes);
      } else if (variant == Variant.ORDERED && workers > 1) {
        awaitPeers(ids, places, changes);
      }
      CpuClock.Reading cpuBefore = clock.read();
      long begin = gate.open();
      if (!drained.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("backlog not drained: " + handled.get() + " of " + messages);
      }
      // The last batch's commit follows the handler; wait until every message is committed processed.
      while (db.count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL") > 0) {
        Thread.onSpinWait();
      }
      rate = messages / ((System.nanoTime() - begin) / 1e9);
      cpu = clock.read().since(cpuBefore);
    } finally {
      for (InboxWorker worker : started) {
        worker.stop();
      }
    }
    return new Drain(rate, cpu, db.bufferReads() - readsBefore);
  }

  /** Numbers the drains' worker ids, unique in the registry. */
  private static final AtomicLong DRAINS = new AtomicLong();

  /**
   * Waits until the workers sharing every head of an ordered inbox know each other: each has been
   * told (onPeersChanged, {@code places}) that it is one of all of them, so that a drain times the
   * steady state a deployment runs in. Checked again whenever a worker's place changes.
   */
  private static void awaitPeers(List<String> ids, Map<String, Integer> places, Semaphore changes)
      throws InterruptedException {
    awaitChange(changes, () -> ids.stream().allMatch(id -> Integer.valueOf(ids.size()).equals(places.get(id))),
        () -> "workers did not see each other within 60 s: " + places);
  }

  /**
   * Waits until the workers hold every partition between them, each its share (a worker
   * gives up a surplus, and another takes it, at their heartbeats: a few seconds after a start).
   * Checked again whenever a worker's partitions change ({@code changes}, released by each worker's
   * onPartitionsChanged).
   */
  private static void awaitBalancedLeases(List<InboxWorker> workers, Semaphore changes)
      throws InterruptedException {
    int partitions = automaticPartitions;
    // With more workers than partitions the share is one partition, and some hold none.
    int share = (partitions + workers.size() - 1) / workers.size();
    awaitChange(changes, () -> {
      int held = 0;
      int least = Integer.MAX_VALUE;
      int most = 0;
      for (InboxWorker worker : workers) {
        int mine = worker.heldPartitions().size();
        held += mine;
        least = Math.min(least, mine);
        most = Math.max(most, mine);
      }
      return held == partitions && least >= partitions / workers.size() && most <= share;
    }, () -> "partition leases not balanced within 60 s: " + workers.stream().map(w -> w.heldPartitions().size()).toList());
  }

  /**
   * Waits until {@code done} holds, checking it again whenever {@code changes} is released (by a
   * worker listener's onPartitionsChanged or onPeersChanged); fails after 60 s with {@code state}.
   */
  static void awaitChange(Semaphore changes, BooleanSupplier done, Supplier<String> state) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !changes.tryAcquire(left, TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException(state.get());
      }
    }
  }


  /**
   * Holds every worker's first claim until all workers have started, so that a drain times the
   * drain alone: starting the workers one after another (each opens its connections, runs its
   * start-up check and LISTENs) took 9-17 ms for one worker and 76-137 ms for four, against drains
   * of 500-700 ms, and the first workers drained alone meanwhile.
   */
  private static final class StartGate implements ClaimPermits {
    private final CountDownLatch open = new CountDownLatch(1);

    /** Lets the workers claim; returns the time they may start, from System.nanoTime. */
    long open() {
      long now = System.nanoTime();
      open.countDown();
      return now;
    }

    @Override
    public int acquire(int max, Duration wait) throws InterruptedException {
      return open.await(wait.toNanos(), TimeUnit.NANOSECONDS) ? max : 0;
    }
  }
}
