package dev.pginbox.benchmarks;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.SQLException;
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
 * One timed drain of a backlog, for the consume scenarios: inserts the backlog, starts the workers
 * held at a gate, waits until they have settled (balanced leases, peers that know each other),
 * opens the gate and times the drain until the last message is committed processed.
 */
final class BacklogDrain {

  private BacklogDrain() {}

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

  /** {@code tuning}: applied to each worker's options last. */
  static Drain drain(
      BenchDatabase db,
      String inbox,
      ConsumeScenario.Variant variant,
      int batch,
      int workers,
      int messages,
      Shape shape,
      UnaryOperator<WorkerOptions.Builder> tuning)
      throws Exception {
    insertBacklog(db, inbox, shape, messages);
    long readsBefore = db.bufferReads();
    Progress progress = new Progress(messages);
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
        WorkerOptions options =
            tuning
                .apply(
                    WorkerOptions.builder(inbox)
                        .batchSize(batch)
                        .pollInterval(Duration.ofMillis(100))
                        .partitions(variant.partitions(w, workers))
                        .retention(false))
                .build();
        String id = inbox + "-" + DRAINS.incrementAndGet() + "-" + w;
        started.add(
            startWorker(db, options, id, shape, progress, gate, listener(id, changes, places)));
        ids.add(id);
      }
      if (variant == ConsumeScenario.Variant.ORDERED_AUTOMATIC) {
        awaitBalancedLeases(started, changes);
      } else if (variant == ConsumeScenario.Variant.ORDERED && workers > 1) {
        awaitPeers(ids, places, changes);
      }
      CpuClock.Reading cpuBefore = clock.read();
      long begin = gate.open();
      if (!progress.drained.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException(
            "backlog not drained: " + progress.handled.get() + " of " + messages);
      }
      // The last batch's commit follows the handler; wait until every message is committed
      // processed.
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

  private static void insertBacklog(BenchDatabase db, String inbox, Shape shape, int messages)
      throws SQLException {
    db.executeAndReport(
        "TRUNCATE inbox." + inbox,
        ("INSERT INTO inbox.%s (event_id, event_type, source, aggregate_id, payload) "
                + "SELECT 'm' || g, CASE WHEN g %% 10 = 0 THEN 'order.cancelled' ELSE 'order.placed' END, 'bench', "
                + "'agg-' || (g %% %d), '%s' FROM generate_series(1, %d) g")
            .formatted(inbox, shape.aggregates(), Payloads.PAYLOAD, messages),
        "VACUUM ANALYZE inbox." + inbox);
  }

  /** A started worker with a no-op handler that counts into {@code progress}, held at the gate. */
  private static InboxWorker startWorker(
      BenchDatabase db,
      WorkerOptions options,
      String id,
      Shape shape,
      Progress progress,
      StartGate gate,
      WorkerListener listener) {
    // Own connections, as a separate process would have (the pool is for producers).
    PostgresInboxWorker.Builder builder =
        PostgresInboxWorker.builder(db.database.dataSource(), options).workerId(id);
    if (shape.perMessage()) {
      builder.handler(
          (message, tx) -> {
            progress.handled(1);
            return Outcome.processed();
          });
    } else {
      builder.batchHandler(
          (claimed, tx) -> {
            progress.handled(claimed.size());
            return BatchResult.allProcessed();
          });
    }
    InboxWorker worker = builder.claimPermits(gate).listener(listener).build();
    worker.start();
    return worker;
  }

  /** Releases {@code changes} when the worker's partitions or peers change; records its peers. */
  private static WorkerListener listener(
      String id, Semaphore changes, Map<String, Integer> places) {
    return new WorkerListener() {
      @Override
      public void onPartitionsChanged(Set<Integer> held, int partitions) {
        changes.release();
      }

      @Override
      public void onPeersChanged(int rank, int peers) {
        places.put(id, rank < 0 ? 0 : peers);
        changes.release();
      }
    };
  }

  /** The messages handled so far; {@code drained} opens once all of them are. */
  private static final class Progress {
    final AtomicLong handled = new AtomicLong();
    final CountDownLatch drained = new CountDownLatch(1);
    private final int messages;

    Progress(int messages) {
      this.messages = messages;
    }

    void handled(int count) {
      if (handled.addAndGet(count) >= messages) {
        drained.countDown();
      }
    }
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
    awaitChange(
        changes,
        () -> ids.stream().allMatch(id -> Integer.valueOf(ids.size()).equals(places.get(id))),
        () -> "workers did not see each other within 60 s: " + places);
  }

  /**
   * Waits until the workers hold every partition between them, each its share (a worker gives up a
   * surplus, and another takes it, at their heartbeats: a few seconds after a start). Checked again
   * whenever a worker's partitions change ({@code changes}, released by each worker's
   * onPartitionsChanged).
   */
  private static void awaitBalancedLeases(List<InboxWorker> workers, Semaphore changes)
      throws InterruptedException {
    int partitions = ConsumeScenario.automaticPartitions;
    // With more workers than partitions the share is one partition, and some hold none.
    int share = (partitions + workers.size() - 1) / workers.size();
    awaitChange(
        changes,
        () -> {
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
        },
        () ->
            "partition leases not balanced within 60 s: "
                + workers.stream().map(w -> w.heldPartitions().size()).toList());
  }

  /**
   * Waits until {@code done} holds, checking it again whenever {@code changes} is released (by a
   * worker listener's onPartitionsChanged or onPeersChanged); fails after 60 s with {@code state}.
   */
  static void awaitChange(Semaphore changes, BooleanSupplier done, Supplier<String> state)
      throws InterruptedException {
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
