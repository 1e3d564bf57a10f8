package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The processing timeout on a distributed inbox, as on a single server: a handler past it is taken
 * away (its statement cancelled, its thread interrupted), the message that was running is charged a
 * failed attempt on the shard's node, so a message that always hangs ends a dead letter after
 * max_retries, and the worker carries on in a fresh thread. One processor: the other messages are
 * drained only if the hung one's thread is replaced.
 */
class ShardProcessingTimeoutTest {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /** Scenario's inbox: a message is dead after this many failed attempts. */
  private static final int MAX_RETRIES = 5;

  /**
   * Enough for several aggregates per shard: a hung message's batch has others before and after.
   */
  private static final int AGGREGATES = 100;

  @Test
  void a_handler_hanging_in_a_statement_is_charged_each_time_and_ends_a_dead_letter()
      throws Exception {
    Scenario s = Scenario.distributed(SharedCluster.get(), "hangsql", AGGREGATES);
    String hung = hungMessage(s);
    MessageHandler each = s.handler();
    MessageHandler handler =
        (message, tx) -> {
          Outcome outcome = each.handle(message, tx); // written, then undone by the timeout
          if (message.eventId().equals(hung)) {
            try (Statement st = tx.unwrap(Connection.class).createStatement()) {
              st.execute("SELECT pg_sleep(600)");
            }
          }
          return outcome;
        };
    runUntilDrained(s, hung, handler, () -> {});
  }

  @Test
  void a_handler_hanging_in_java_is_taken_away_and_the_worker_drains_the_rest() throws Exception {
    Scenario s = Scenario.distributed(SharedCluster.get(), "hangjava", AGGREGATES);
    String hung = hungMessage(s);
    MessageHandler each = s.handler();
    CountDownLatch never = new CountDownLatch(1);
    MessageHandler handler =
        (message, tx) -> {
          if (message.eventId().equals(hung)) {
            awaitIgnoringInterrupts(never);
          }
          return each.handle(message, tx);
        };
    runUntilDrained(s, hung, handler, never::countDown);
  }

  /**
   * Two rounds of messages to every aggregate, one processor: the hung message is charged once per
   * attempt until it is dead (its aggregate's second message waits behind it), and every other
   * message is handled exactly once.
   */
  private static void runUntilDrained(
      Scenario s, String hung, MessageHandler handler, Runnable release) throws Exception {
    AtomicInteger timeouts = new AtomicInteger();
    InboxWorker worker =
        PostgresInboxWorker.builder(
                SharedCluster.dataSource(SharedCluster.get().coordinatorUrl()),
                WorkerOptions.builder(s.inbox)
                    .batchSize(10)
                    .concurrency(1)
                    .processingTimeout(TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .shutdownGrace(Duration.ofSeconds(2))
                    .partitions(new PartitionAssignment.Automatic(1, Duration.ofSeconds(2)))
                    .build())
            .handler(handler)
            .listener(
                new WorkerListener() {
                  @Override
                  public void onProcessingTimeout(List<String> eventIds) {
                    if (eventIds.contains(hung)) {
                      timeouts.incrementAndGet();
                    }
                  }
                })
            .build();
    s.send(1);
    worker.start();
    try {
      await().atMost(WAIT).until(() -> retryCount(s, hung) == MAX_RETRIES);
      s.send(1); // the processor that replaced the hung ones carries on
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent() - 2);
    } finally {
      release.run();
      worker.stop();
    }
    assertThat(timeouts).as("processing timeouts of " + hung).hasValue(MAX_RETRIES);
    assertThat(
            s.count(
                "SELECT count(*) FROM inbox."
                    + s.inbox
                    + " WHERE event_id = '"
                    + hung
                    + "' AND processed_at IS NULL AND died_at IS NOT NULL"
                    + " AND error LIKE 'processing timeout: %'"))
        .as(hung + " a dead letter of the processing timeout")
        .isEqualTo(1);
    assertThat(
            s.count(
                "SELECT count(*) FROM inbox."
                    + s.inbox
                    + " WHERE event_id <> '"
                    + hung
                    + "' AND retry_count > 0"))
        .as("other messages charged (those after the hung one are given back uncharged)")
        .isZero();
    assertThat(
            s.count(
                "SELECT count(*) FROM "
                    + s.effects
                    + " WHERE aggregate_id = '"
                    + aggregateOf(hung)
                    + "'"))
        .as("effects of the hung message's aggregate (rolled back each time)")
        .isZero();
    assertThat(s.count("SELECT count(*) FROM " + s.effects)).isEqualTo(s.sent() - 2);
    assertThat(
            s.count(
                "SELECT count(*) FROM (SELECT 1 FROM "
                    + s.effects
                    + " GROUP BY aggregate_id, event_id HAVING count(*) > 1) d"))
        .as("messages handled twice")
        .isZero();
    assertThat(s.count("SELECT count(*) FROM " + s.effects + " WHERE NOT in_order"))
        .as("handled out of order")
        .isZero();
  }

  private static long retryCount(Scenario s, String hung) throws SQLException {
    return s.count(
        "SELECT coalesce(max(retry_count), 0) FROM inbox."
            + s.inbox
            + " WHERE event_id = '"
            + hung
            + "'");
  }

  /**
   * The first message of an aggregate in the middle of the shard that holds the most aggregates: in
   * its batch a message before it is handled and the ones after it are never reached.
   */
  private static String hungMessage(Scenario s) throws SQLException {
    String shardOf = "get_shard_id_for_distribution_column('inbox." + s.inbox + "', 'agg-' || g)";
    String aggregates = "generate_series(0, " + (AGGREGATES - 1) + ") g";
    long g =
        s.count(
            "SELECT g FROM "
                + aggregates
                + " WHERE "
                + shardOf
                + " = (SELECT "
                + shardOf
                + " FROM "
                + aggregates
                + " GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) ORDER BY g OFFSET 1 LIMIT 1");
    return "e-" + g + "-1";
  }

  private static String aggregateOf(String eventId) {
    return "agg-" + eventId.split("-")[1];
  }

  /** A handler that ignores interruption: only the latch ends its wait. */
  private static void awaitIgnoringInterrupts(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException ignored) {
        // keeps hanging
      }
    }
  }
}
