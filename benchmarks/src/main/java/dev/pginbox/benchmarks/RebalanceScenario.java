package dev.pginbox.benchmarks;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a worker that joins takes to hold its share of automatic partitions while another
 * worker drains a backlog (every lease busy in its claims): one worker holds all 32 partitions,
 * then, once per run, a second starts and is timed until it holds 16; it stops again and the first
 * is timed until it holds all 32 again (from the end of the second's stop). Default leases (10 s, a
 * heartbeat every 3.3 s); a handler that spends 2 ms per batch of 100, so the first worker is
 * always inside a claim transaction.
 */
final class RebalanceScenario {

  private static final int PARTITIONS = 32;

  private RebalanceScenario() {}

  static void run(Report report, int runs) throws Exception {
    report.section("A joining worker's share of 32 automatic partitions while another drains, and the"
            + " partitions of a leaving one (ms)",
        "| until | runs | each | median (min..max) |");
    BenchDatabase db = BenchDatabase.create("rebalance");
    PostgresInboxManager.create(db.dataSource).createInbox("rebalance");
    db.execute("INSERT INTO inbox.rebalance (event_id, event_type, source, aggregate_id, payload) "
        + "SELECT 'm' || g, 't', 'bench', 'agg-' || (g % 1000), '{}' FROM generate_series(1, 2000000) g");
    Semaphore changes = new Semaphore(0); // a worker's partitions changed
    InboxWorker first = worker(db, "first", changes);
    first.start();
    Measurements joined = new Measurements();
    Measurements left = new Measurements();
    StringBuilder eachJoined = new StringBuilder();
    StringBuilder eachLeft = new StringBuilder();
    try {
      awaitHeld(first, PARTITIONS, changes);
      for (int run = 0; run < runs; run++) {
        Thread.sleep(1000 + ThreadLocalRandom.current().nextInt(3000)); // any point of the heartbeats
        InboxWorker second = worker(db, "second-" + run, changes);
        long start = System.nanoTime();
        second.start();
        try {
          awaitHeld(second, PARTITIONS / 2, changes);
          add(joined, eachJoined, start);
        } finally {
          second.stop();
        }
        long stopped = System.nanoTime();
        awaitHeld(first, PARTITIONS, changes);
        add(left, eachLeft, stopped);
      }
    } finally {
      first.stop();
    }
    long waiting = db.count("SELECT count(*) FROM inbox.rebalance WHERE processed_at IS NULL");
    if (waiting == 0) {
      throw new IllegalStateException("the backlog ran out: the leases were not busy throughout");
    }
    report.row("the joining worker holds 16 (from its start)", runs, eachJoined, joined.summary());
    report.row("the other holds 32 again (from the end of the leaving one's stop)", runs, eachLeft,
        left.summary());
  }

  private static void add(Measurements ms, StringBuilder each, long sinceNanos) {
    double took = (System.nanoTime() - sinceNanos) / 1e6;
    ms.add(took);
    each.append(each.isEmpty() ? "" : ", ").append(String.format("%,.0f", took));
  }

  private static InboxWorker worker(BenchDatabase db, String id, Semaphore changes) {
    WorkerOptions options = WorkerOptions.builder("rebalance")
        .batchSize(100)
        .pollInterval(Duration.ofMillis(100))
        .partitions(PartitionAssignment.automatic(PARTITIONS))
        .retention(false)
        .build();
    // Own connections, as a separate process would have (the pool is for producers).
    return PostgresInboxWorker.builder(db.database.dataSource(), options)
        .workerId(id)
        .listener(new WorkerListener() {
          @Override
          public void onPartitionsChanged(Set<Integer> held, int partitions) {
            changes.release();
          }
        })
        .batchHandler((claimed, tx) -> {
          Thread.sleep(2);
          return BatchResult.allProcessed();
        })
        .build();
  }

  private static void awaitHeld(InboxWorker worker, int partitions, Semaphore changes) throws InterruptedException {
    BacklogDrain.awaitChange(changes, () -> worker.heldPartitions().size() >= partitions,
        () -> "no share of the partitions within 60 s: " + worker.heldPartitions());
  }
}
