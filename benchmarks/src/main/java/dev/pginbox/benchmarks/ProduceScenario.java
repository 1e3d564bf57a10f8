package dev.pginbox.benchmarks;

import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Scenario 1: messages written per second through {@link PostgresInbox#send} (one message per
 * transaction) and {@link PostgresInbox#sendAll} (one statement per batch), by 1 and 4 producers,
 * and again with every event id already present (the idempotent path).
 */
final class ProduceScenario {

  /**
   * @param asProducerRole send as a member of the group role inbox_producer (column privileges
   *     checked on every insert) instead of as the inbox's owner
   */
  static void run(Report report, int runs, double scale, boolean asProducerRole) throws Exception {
    report.section("Produce" + (asProducerRole ? " as a member of inbox_producer" : "")
        + " (messages/s, median of runs, min..max)", "| mode | batch | producers | messages/s |");
    BenchDatabase db = BenchDatabase.create("produce");
    PostgresInboxManager.create(db.dataSource).createInbox("produce");
    PostgresInbox inbox = PostgresInboxManager.create(
        asProducerRole ? db.poolAs("bench_producer", "inbox_producer") : db.dataSource).inbox("produce");
    for (int batch : new int[] {1, 100, 1000}) {
      for (int producers : new int[] {1, 4}) {
        int perProducer = (int) Math.max(batch, (batch == 1 ? 5_000 : 100_000) * scale / producers);
        perProducer -= perProducer % batch;
        Measurements fresh = new Measurements();
        Measurements duplicate = new Measurements();
        for (int run = -1; run < runs; run++) {
          db.execute("TRUNCATE inbox.produce");
          String prefix = "r" + run + "-";
          double rate = produce(inbox, prefix, batch, producers, perProducer);
          double dupRate = produce(inbox, prefix, batch, producers, perProducer);
          if (run >= 0) { // run -1 warms up the JIT, the server's caches and the plans
            fresh.add(rate);
            duplicate.add(dupRate);
          }
        }
        String mode = batch == 1 ? "send (1 per transaction)" : "sendAll";
        report.row(mode, batch, producers, fresh.summary());
        report.row(mode + ", all duplicates", batch, producers, duplicate.summary());
      }
    }
  }

  static double produce(PostgresInbox inbox, String prefix, int batch, int producers, int perProducer)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(producers);
    try {
      List<Future<?>> futures = new ArrayList<>();
      long start = System.nanoTime();
      for (int p = 0; p < producers; p++) {
        long first = (long) p * perProducer;
        futures.add(pool.submit(() -> {
          for (long n = first; n < first + perProducer; n += batch) {
            if (batch == 1) {
              inbox.send(Payloads.message(prefix, n, 1000));
            } else {
              inbox.sendAll(Payloads.batch(prefix, n, batch, 1000));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      return (double) producers * perProducer / seconds;
    } finally {
      pool.shutdownNow();
    }
  }
}
