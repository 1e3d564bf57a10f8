package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * Claim ahead ({@code WorkerOptions.claimAhead}): the next batch is claimed while the current one
 * is handled, yet handlers run one at a time (per unit of concurrency), each after the batch before
 * it committed; a stuck handler, a stop and killed backends lose nothing.
 */
class ClaimAheadTest extends WorkerTestSupport {

  /**
   * The rows of the inbox that some transaction holds locked: pending ones this session cannot lock
   * without waiting. Its own locks last only for the statement.
   */
  private static long lockedByWorkers(String inbox) {
    return count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL")
        - count(
            "SELECT count(*) FROM (SELECT 1 FROM inbox."
                + inbox
                + " WHERE processed_at IS NULL FOR UPDATE SKIP LOCKED) free");
  }

  @Test
  void the_next_batch_is_claimed_during_the_handler_and_handled_only_after_the_commit()
      throws InterruptedException {
    String inbox = newInbox("ahead");
    insert(inbox, "m", 0, 60, 60);
    CountDownLatch inFirst = new CountDownLatch(1);
    CountDownLatch letFirstGo = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicInteger handedOut = new AtomicInteger();
    List<String> invisible = new CopyOnWriteArrayList<>();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(), options(inbox, true).batchSize(10).claimAhead(true).build())
                .batchHandler(
                    (batch, tx) -> {
                      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                      try {
                        Handle h = tx.unwrap(Handle.class);
                        // Every batch handed out before this one committed before it started.
                        long committed =
                            h.createQuery("SELECT count(*) FROM " + inbox + "_handled")
                                .mapTo(Long.class)
                                .one();
                        if (committed != handedOut.get()) {
                          invisible.add(committed + " of " + handedOut.get());
                        }
                        batch.forEach(
                            m -> recordHandled(h, inbox, m.eventId(), "w", m.aggregateId()));
                        if (inFirst.getCount() > 0) {
                          inFirst.countDown();
                          letFirstGo.await();
                        }
                        handedOut.addAndGet(batch.size());
                      } finally {
                        running.decrementAndGet();
                      }
                      return BatchResult.allProcessed();
                    })
                .build());
    worker.start();
    assertThat(inFirst.await(30, TimeUnit.SECONDS)).isTrue();
    // The first batch's handler waits: the next batch is claimed meanwhile, and no more.
    await().atMost(Duration.ofSeconds(10)).until(() -> lockedByWorkers(inbox) == 20);
    await().during(Duration.ofMillis(300)).until(() -> lockedByWorkers(inbox) == 20);
    letFirstGo.countDown();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 60);
    assertThat(mostAtOnce.get()).isEqualTo(1);
    assertThat(invisible).isEmpty();
    awaitDrained(inbox, Duration.ofSeconds(10));
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
  }

  @Test
  void without_claim_ahead_the_worker_holds_one_batch_at_a_time() throws InterruptedException {
    String inbox = newInbox("notahead");
    insert(inbox, "m", 0, 60, 60);
    CountDownLatch inFirst = new CountDownLatch(1);
    CountDownLatch letFirstGo = new CountDownLatch(1);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(10).build())
                .batchHandler(
                    (batch, tx) -> {
                      if (inFirst.getCount() > 0) {
                        inFirst.countDown();
                        letFirstGo.await();
                      }
                      return BatchResult.allProcessed();
                    })
                .build());
    worker.start();
    assertThat(inFirst.await(30, TimeUnit.SECONDS)).isTrue();
    await().during(Duration.ofMillis(300)).until(() -> lockedByWorkers(inbox) == 10);
    letFirstGo.countDown();
    awaitDrained(inbox, Duration.ofSeconds(30));
  }

  /**
   * The stuck handler's thread never comes back (it ignores interruption): its turn goes to the
   * batch claimed ahead once the timed-out batch has been ended on its connection.
   */
  @Test
  void a_handler_stuck_past_the_processing_timeout_hands_its_turn_to_the_batch_claimed_ahead() {
    String inbox = newInbox("ahead_timeout");
    insert(inbox, "m", 0, 20, 20);
    AtomicBoolean hangOver = new AtomicBoolean();
    try {
      InboxWorker worker =
          track(
              PostgresInboxWorker.builder(
                      dataSource(),
                      options(inbox, true)
                          .batchSize(5)
                          .processingTimeout(Duration.ofMillis(500))
                          .claimAhead(true)
                          .build())
                  .handler(
                      (m, tx) -> {
                        recordHandled(
                            tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                        if (m.eventId().equals("m-0") && m.retryCount() == 0) {
                          while (!hangOver.get()) {
                            Thread.onSpinWait();
                          }
                        }
                        return Outcome.processed();
                      })
                  .build());
      worker.start();
      // Every message handled, m-0 at its retry, while the first handler still spins.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 20);
      assertThat(
              count(
                  "SELECT count(*) FROM inbox."
                      + inbox
                      + " WHERE retry_count = 1 AND error LIKE '%timeout%'"))
          .isEqualTo(1);
      awaitDrained(inbox, Duration.ofSeconds(10));
    } finally {
      hangOver.set(true);
    }
  }

  /**
   * The handler of the batch in hand writes a duplicate of a message the batch claimed ahead holds
   * into the same inbox: its insert waits for the batch claimed ahead, which waits for the
   * handler's turn to end. Nothing in the database sees that cycle; the batch claimed ahead must
   * give its messages back (uncharged) instead of both waiting until the processing timeout.
   */
  @Test
  void a_batch_claimed_ahead_that_the_handler_waits_for_gives_its_messages_back() {
    String inbox = newInbox("ahead_in_the_way");
    insert(inbox, "m", 0, 2, 2);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true)
                        .batchSize(1)
                        .processingTimeout(Duration.ofSeconds(120))
                        .claimAhead(true)
                        .build())
                .handler(
                    (m, tx) -> {
                      Handle h = tx.unwrap(Handle.class);
                      if (m.eventId().equals("m-0")) {
                        // m-1 claimed ahead (m-0 is this batch's), then the duplicate
                        await()
                            .atMost(Duration.ofSeconds(10))
                            .until(() -> lockedByWorkers(inbox) == 2);
                        h.execute(
                            "INSERT INTO inbox."
                                + inbox
                                + " (event_id, event_type, payload) VALUES ('m-1', 'test', '{}')"
                                + " ON CONFLICT (event_id) DO NOTHING");
                      }
                      recordHandled(h, inbox, m.eventId(), "w", m.aggregateId());
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 2);
    awaitDrained(inbox, Duration.ofSeconds(10));
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
  }

  @Test
  void stopping_gives_the_batch_waiting_for_its_turn_back_uncharged() throws InterruptedException {
    String inbox = newInbox("ahead_stop");
    insert(inbox, "m", 0, 10, 10);
    CountDownLatch inFirst = new CountDownLatch(1);
    InboxWorker worker =
        PostgresInboxWorker.builder(
                dataSource(),
                options(inbox, true)
                    .batchSize(5)
                    .shutdownGrace(Duration.ofMillis(200))
                    .claimAhead(true)
                    .build())
            .batchHandler(
                (batch, tx) -> {
                  batch.forEach(
                      m ->
                          recordHandled(
                              tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId()));
                  inFirst.countDown();
                  new CountDownLatch(1).await(); // hangs until interrupted
                  return BatchResult.allProcessed();
                })
            .build();
    worker.start();
    assertThat(inFirst.await(30, TimeUnit.SECONDS)).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockedByWorkers(inbox) == 10);
    worker.stop();
    assertThat(worker.awaitTermination(Duration.ofSeconds(10))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockedByWorkers(inbox) == 0);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE processed_at IS NULL AND retry_count = 0"))
        .isEqualTo(10);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isZero();
  }
}
