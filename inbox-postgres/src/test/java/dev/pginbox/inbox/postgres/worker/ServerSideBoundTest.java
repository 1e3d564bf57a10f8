package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * The server-side bound of a claim transaction: when nothing in the JVM can end a stuck batch (a
 * frozen JVM; here runOnce(), which has no watchdog, and a stall before the watchdog is armed), the
 * server ends the transaction, another worker gets the messages, and the stuck worker, once it runs
 * again, commits nothing of the old batch and carries on.
 */
class ServerSideBoundTest extends WorkerTestSupport {

  /**
   * processingTimeout 300 ms: the server ends an idle claim transaction after 300 ms + 1 s margin.
   */
  private static final Duration PROCESSING_TIMEOUT = Duration.ofMillis(300);

  private static InboxWorker rescuer(String inbox) {
    return PostgresInboxWorker.builder(dataSource(), options(inbox, false).batchSize(10).build())
        .handler(
            (m, tx) -> {
              recordHandled(
                  tx.unwrap(Handle.class), inbox, m.eventId(), "rescuer", m.aggregateId());
              return Outcome.processed();
            })
        .build();
  }

  /**
   * Claims with runOnce() until {@code expected} messages were taken: the stuck transaction has to
   * end first.
   */
  private static void rescue(InboxWorker rescuer, int expected) {
    AtomicInteger rescued = new AtomicInteger();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> rescued.addAndGet(rescuer.runOnce()) == expected);
  }

  private static void assertAllProcessedOnceWithoutFailures(String inbox) {
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
    // The server ending a session is a lost connection, not the message's fault.
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " m LEFT JOIN "
                    + inbox
                    + "_handled h USING (event_id) "
                    + "WHERE h.event_id IS NULL"))
        .isZero();
  }

  @Test
  void
      a_run_once_handler_blocked_forever_has_its_transaction_ended_by_the_server_and_commits_nothing()
          throws Exception {
    String inbox = newInbox("srvonce");
    CountDownLatch inHandler = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean block = new AtomicBoolean(true);
    AtomicInteger idleBoundSeen = new AtomicInteger();
    InboxWorker stuck =
        PostgresInboxWorker.builder(
                dataSource(),
                options(inbox, false).batchSize(10).processingTimeout(PROCESSING_TIMEOUT).build())
            .handler(
                (m, tx) -> {
                  Handle h = tx.unwrap(Handle.class);
                  idleBoundSeen.set(
                      h.createQuery(
                                  "SELECT current_setting('idle_in_transaction_session_timeout')::interval "
                                      + "= interval '1300 milliseconds'")
                              .mapTo(Boolean.class)
                              .one()
                          ? 1
                          : -1);
                  recordHandled(h, inbox, m.eventId(), "stuck", m.aggregateId());
                  if (block.get()) {
                    inHandler.countDown();
                    release.await(); // frozen: nothing in this JVM ends the batch
                  }
                  return Outcome.processed();
                })
            .build();
    insert(inbox, "m", 0, 5, 5);
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      CompletableFuture<Integer> frozen = CompletableFuture.supplyAsync(stuck::runOnce, caller);
      assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(idleBoundSeen.get()).isEqualTo(1);

      rescue(rescuer(inbox), 5);
      block.set(false);
      release.countDown();
      assertThatThrownBy(() -> frozen.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InboxException.class);
    } finally {
      release.countDown();
      caller.shutdownNow();
    }
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled WHERE worker = 'stuck'")).isZero();
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled WHERE worker = 'rescuer'"))
        .isEqualTo(5);

    // The stuck worker recovers: the next runOnce works on a new connection.
    insert(inbox, "after", 0, 3, 3);
    assertThat(stuck.runOnce()).isEqualTo(3);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled WHERE worker = 'stuck'"))
        .isEqualTo(3);
    assertAllProcessedOnceWithoutFailures(inbox);
  }

  @Test
  void
      a_processor_frozen_before_its_watchdog_is_armed_loses_its_batch_to_the_server_and_reconnects() {
    String inbox = newInbox("srvstall");
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    // onDispatch runs on the processor thread after the claim and before the watchdog is armed:
    // blocking there is a JVM stall that the processing timeout cannot see.
    WorkerListener freezer =
        new WorkerListener() {
          @Override
          public void onDispatch(int count, DispatchReason reason) {
            if (first.compareAndSet(true, false)) {
              stalled.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
        };
    InboxWorker stuck =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, false)
                        .batchSize(10)
                        .processingTimeout(PROCESSING_TIMEOUT)
                        .build())
                .listener(freezer)
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "stuck", m.aggregateId());
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 5, 5);
    stuck.start();
    try {
      assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();
      rescue(rescuer(inbox), 5);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    } finally {
      release.countDown();
    }
    // Unfrozen, the processor finds its connection gone, commits nothing, reconnects and goes on.
    insert(inbox, "after", 0, 3, 3);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> count("SELECT count(*) FROM " + inbox + "_handled WHERE worker = 'stuck'") == 3);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled WHERE worker = 'rescuer'"))
        .isEqualTo(5);
    assertThat(
            count(
                "SELECT count(*) FROM "
                    + inbox
                    + "_handled WHERE worker = 'stuck' AND event_id LIKE 'm-%'"))
        .isZero();
    assertAllProcessedOnceWithoutFailures(inbox);
    assertThat(stuck.isRunning()).isTrue();
  }
}
