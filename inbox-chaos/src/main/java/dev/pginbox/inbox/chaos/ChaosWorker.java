package dev.pginbox.inbox.chaos;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One worker process of the suite: {@code ChaosWorker <jdbc-url> <inbox> <name>}. Its handler (a
 * message handler, or a batch handler for even numbers) writes one row per message into {@code
 * chaos_effects} in the claim's transaction, which the suite reads afterwards to check exactly-once
 * effects and per-aggregate order. The URL may name several hosts ({@code
 * targetServerType=primary}). It prints {@code READY} once started, stops gracefully on SIGTERM and
 * is meant to be killed with SIGKILL.
 */
public final class ChaosWorker {

  /** What the handler writes; read by {@link ChaosChecks}. */
  static final String EFFECTS_DDL =
      """
      CREATE TABLE IF NOT EXISTS chaos_effects (
          id           bigserial PRIMARY KEY,
          event_id     text NOT NULL,
          aggregate_id text NOT NULL,
          version      integer NOT NULL,
          worker       text NOT NULL,
          applied_at   timestamptz NOT NULL DEFAULT clock_timestamp())""";

  private static final String RECORD_EFFECT =
      "INSERT INTO chaos_effects (event_id, aggregate_id, version, worker)"
          + " VALUES (?, ?, (?::jsonb ->> 'v')::int, ?)";

  private ChaosWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ChaosWorker <jdbc-url> <inbox> <name>");
      System.exit(2);
    }
    String url = args[0];
    String inbox = args[1];
    String name = args[2];
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(url);
    // The names end in a number: odd ones claim ahead, of every four the second pair runs without
    // partitions (spread over the buckets with their live peers, preferring their share), beside
    // the others' automatic partitions, every third takes up to five messages of an aggregate per
    // batch, and the even ones hand their batches to a batch handler.
    int number = Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
    WorkerOptions options =
        WorkerOptions.builder(inbox)
            .batchSize(50)
            .concurrency(2)
            .claimAhead(number % 2 == 1)
            .messagesPerAggregate(number % 3 == 0 ? 5 : 1)
            .pollInterval(Duration.ofMillis(500))
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
            .partitions(
                number / 2 % 2 == 1
                    ? PartitionAssignment.all()
                    : new PartitionAssignment.Automatic(8, Duration.ofSeconds(2)))
            .shutdownGrace(Duration.ofSeconds(5))
            .build();
    PostgresInboxWorker.Builder builder =
        PostgresInboxWorker.builder(dataSource, options).workerId(name);
    if (number % 2 == 0) {
      builder.batchHandler(
          (batch, tx) -> {
            record(tx.unwrap(Connection.class), batch, name);
            return BatchResult.allProcessed();
          });
    } else {
      builder.handler(
          (message, tx) -> {
            record(tx.unwrap(Connection.class), List.of(message), name);
            return Outcome.processed();
          });
    }
    InboxWorker worker = builder.build();
    Runtime.getRuntime().addShutdownHook(new Thread(worker::stop, "chaos-worker-stop"));
    worker.start();
    System.out.println("READY " + name);
    System.out.flush();
    Thread.currentThread().join();
  }

  /** One effect row per message, in the order given (the claim's). */
  private static void record(Connection connection, List<InboxMessage> messages, String worker)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(RECORD_EFFECT)) {
      for (InboxMessage m : messages) {
        s.setString(1, m.eventId());
        s.setString(2, m.aggregateId());
        s.setString(3, m.payload());
        s.setString(4, worker);
        s.addBatch();
      }
      s.executeBatch();
    }
  }
}
