package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-aggregate order under concurrency and failures, and priority order, as claim_<name> enforces
 * them.
 */
class OrderingAndPriorityTest extends WorkerTestSupport {

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void twenty_aggregates_of_fifty_messages_over_four_workers_with_random_failures_keep_exact_order(
      boolean listen) {
    String inbox = newInbox("ordered", 1000);
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'received_at')");
    List<InboxWorker> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      String name = "w" + w;
      workers.add(
          track(
              PostgresInboxWorker.builder(
                      dataSource(), options(inbox, listen).concurrency(2).batchSize(10).build())
                  .handler(recordingAndFailingOneInFive(inbox, name))
                  .build()));
    }
    // Several statements, so arrival order within an aggregate spans transactions.
    for (int batch = 0; batch < 10; batch++) {
      insert(inbox, "m", batch * 100, 100, 20);
    }
    workers.forEach(InboxWorker::start);
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 1000);

    // For each aggregate, the handled order (identity n) equals the arrival order (seq).
    assertThat(handledOutOfOrder(inbox)).isZero();
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0"))
        .isPositive();
  }

  /**
   * Fewer aggregates than a batch: one claim takes every head, and the other workers' claims come
   * back empty. They wait for a held head instead of sleeping until their next poll (an hour here,
   * with no notifications), so more than one worker takes part; random failures, retried at once,
   * keep heads moving between workers; each aggregate is still handled in arrival order.
   */
  @Test
  void workers_that_find_every_head_held_wake_when_one_is_released_and_keep_exact_order() {
    String inbox = newInbox("ordered_held", 1000);
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'received_at')");
    for (int batch = 0; batch < 6; batch++) {
      insert(inbox, "m", batch * 200, 200, 40);
    }
    List<InboxWorker> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      String name = "w" + w;
      workers.add(
          track(
              PostgresInboxWorker.builder(
                      dataSource(),
                      options(inbox, false)
                          .batchSize(100)
                          .pollInterval(Duration.ofHours(1))
                          .build())
                  .handler(
                      (m, tx) -> {
                        recordHandled(
                            tx.unwrap(Handle.class), inbox, m.eventId(), name, m.aggregateId());
                        if (ThreadLocalRandom.current().nextInt(5) == 0) {
                          return Outcome.retryAfter(Duration.ZERO, "random failure");
                        }
                        return Outcome.processed();
                      })
                  .build()));
    }
    workers.forEach(InboxWorker::start);
    awaitDrained(inbox, Duration.ofSeconds(90));

    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(1200);
    assertThat(count("SELECT count(DISTINCT worker) FROM " + inbox + "_handled")).isGreaterThan(1);
    // A failed attempt's row was undone with its savepoint, so the rows left are the successful
    // attempts: for each aggregate, the handled order (identity n) equals the arrival order.
    assertThat(handledOutOfOrder(inbox)).isZero();
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0"))
        .isPositive();
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void lower_priority_values_are_claimed_first_across_the_inbox(boolean listen) {
    String inbox = newInbox("priority");
    execute("SELECT inbox.enable_inbox_priority('" + inbox + "', 'event_type', '{\"urgent\": 1}')");
    // Low priority first in arrival order, urgent ones after them.
    execute(
        "INSERT INTO inbox."
            + inbox
            + " (event_id, event_type) SELECT 'low-' || i, 'bulk' FROM generate_series(1, 20) i");
    execute(
        "INSERT INTO inbox."
            + inbox
            + " (event_id, event_type) SELECT 'urgent-' || i, 'urgent' FROM generate_series(1, 20) i");
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).batchSize(1).build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 40);
    assertThat(count("SELECT max(n) FROM " + inbox + "_handled WHERE event_id LIKE 'urgent-%'"))
        .isLessThan(count("SELECT min(n) FROM " + inbox + "_handled WHERE event_id LIKE 'low-%'"));
  }
}
