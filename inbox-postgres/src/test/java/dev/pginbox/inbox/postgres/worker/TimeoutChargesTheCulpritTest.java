package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * A processing timeout charges only the message that hung: its batch-mates are retried without a
 * failed attempt, and the hung message's failed attempt and backoff are written before anyone can
 * claim it again.
 */
class TimeoutChargesTheCulpritTest extends WorkerTestSupport {

  private static final int MAX_RETRIES = 3;

  private static void hang() throws InterruptedException {
    new CountDownLatch(1).await(); // until the timeout interrupts it
  }

  private static void awaitDead(String inbox, String eventId) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox."
                            + inbox
                            + "_dlq WHERE event_id = '"
                            + eventId
                            + "' AND error LIKE 'processing timeout%'")
                    == 1);
  }

  private static void assertOthersProcessedUncharged(String inbox, String culprit, int total) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == total - 1);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE event_id <> '"
                    + culprit
                    + "' AND (retry_count > 0 OR processed_at IS NULL)"))
        .isZero();
  }

  @Test
  void a_message_handler_timeout_charges_only_the_message_that_was_running() {
    String inbox = newInbox("culprit", MAX_RETRIES);
    insert(inbox, "m", 0, 20, 20);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, false)
                        .batchSize(20)
                        .processingTimeout(Duration.ofMillis(300))
                        .build())
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      if (m.eventId().equals("m-7")) {
                        hang();
                      }
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    awaitDead(inbox, "m-7");
    assertOthersProcessedUncharged(inbox, "m-7", 20);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-7'"))
        .isEqualTo(MAX_RETRIES);
  }

  @Test
  void a_batch_handler_timeout_is_narrowed_down_in_halves_to_the_message_that_hangs() {
    String inbox = newInbox("halves", MAX_RETRIES);
    insert(inbox, "m", 0, 16, 16);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, false)
                        .batchSize(16)
                        .processingTimeout(Duration.ofMillis(300))
                        .build())
                .batchHandler(
                    (batch, tx) -> {
                      Handle h = tx.unwrap(Handle.class);
                      for (var m : batch) {
                        recordHandled(h, inbox, m.eventId(), "w", m.aggregateId());
                        if (m.eventId().equals("m-5")) {
                          hang();
                        }
                      }
                      return BatchResult.allProcessed();
                    })
                .build());
    worker.start();
    awaitDead(inbox, "m-5");
    assertOthersProcessedUncharged(inbox, "m-5", 16);
  }

  /** One attempt of the hanging message, as its handler saw its own row. */
  private record Attempt(int retryCount, OffsetDateTime nextAttemptAt, OffsetDateTime startedAt) {}

  @Test
  void the_failed_attempt_and_its_backoff_are_recorded_before_the_message_can_be_claimed_again() {
    String inbox = newInbox("backoff", 4);
    execute(
        "UPDATE inbox.inbox_config SET backoff_base = interval '50 milliseconds', "
            + "backoff_max = interval '200 milliseconds' WHERE inbox_name = '"
            + inbox
            + "'");
    List<Attempt> attempts = new CopyOnWriteArrayList<>();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true)
                        .batchSize(1)
                        .concurrency(3)
                        .processingTimeout(Duration.ofMillis(300))
                        .build())
                .handler(
                    (m, tx) -> {
                      if (m.eventId().equals("hang-0")) {
                        attempts.add(
                            tx.unwrap(Handle.class)
                                .createQuery(
                                    "SELECT retry_count, next_attempt_at, clock_timestamp() FROM inbox."
                                        + inbox
                                        + " WHERE event_id = 'hang-0'")
                                .map(
                                    (rs, ctx) ->
                                        new Attempt(
                                            rs.getInt(1),
                                            rs.getObject(2, OffsetDateTime.class),
                                            rs.getObject(3, OffsetDateTime.class)))
                                .one());
                        hang();
                      }
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "hang", 0, 1, 1);
    worker.start();
    // Other messages keep coming, so a free processor claims whatever is claimable at once: the
    // moment the hung message's rows were free before its failure is written, it would be claimed
    // again with the same retry count.
    AtomicBoolean done = new AtomicBoolean();
    Thread producer =
        new Thread(
            () -> {
              for (int i = 0; i < 50_000 && !done.get(); i++) {
                insert(inbox, "tick", i, 1, 1);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
              }
            });
    producer.start();
    try {
      awaitDead(inbox, "hang-0");
    } finally {
      done.set(true);
    }
    assertThat(attempts).extracting(Attempt::retryCount).containsExactly(0, 1, 2, 3);
    for (int i = 1; i < attempts.size(); i++) {
      Attempt previous = attempts.get(i - 1);
      Attempt attempt = attempts.get(i);
      // The backoff was set after the previous attempt began, and this attempt waited for it.
      assertThat(attempt.nextAttemptAt()).isAfter(previous.startedAt());
      assertThat(attempt.startedAt()).isAfterOrEqualTo(attempt.nextAttemptAt());
    }
  }
}
