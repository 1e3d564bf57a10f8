package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures stay with the message that failed: retries with backoff, dead letters, replay, aborts.
 */
class FailureHandlingTest extends WorkerTestSupport {

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void
      a_poison_message_goes_to_the_dlq_while_the_rest_of_its_batch_is_processed_and_replay_brings_it_back(
          boolean listen) {
    String inbox = newInbox("poison", 3);
    AtomicBoolean healed = new AtomicBoolean();
    AtomicInteger poisonAttempts = new AtomicInteger();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).build())
                .meterRegistry(registry)
                .handler(
                    (m, tx) -> {
                      // The write happens before the failure: the savepoint must undo it.
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      if (m.eventId().equals("m-7") && !healed.get()) {
                        poisonAttempts.incrementAndGet();
                        throw new IllegalStateException("cannot digest m-7");
                      }
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    insert(inbox, "m", 0, 20, 20);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM inbox." + inbox + "_dlq") == 1);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(19);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled WHERE event_id = 'm-7'")).isZero();
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-7'"))
        .isEqualTo(3);
    assertThat(poisonAttempts).hasValue(3);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + "_dlq WHERE error LIKE '%cannot digest m-7%'"))
        .isEqualTo(1);
    assertThat(registry.get("inbox.messages.failed").counter().count()).isEqualTo(3);
    assertThat(registry.get("inbox.messages.dead_lettered").counter().count()).isEqualTo(1);

    // A dead letter is never claimed again by itself ...
    assertThat(worker.runOnce()).isZero();
    // ... until replayed (the replay function resets the retry count the same way).
    healed.set(true);
    execute(
        "UPDATE inbox."
            + inbox
            + " SET retry_count = 0, error = NULL, next_attempt_at = '-infinity' "
            + "WHERE event_id = 'm-7'");
    execute("NOTIFY inbox_" + inbox);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 20);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void outcomes_retry_dead_and_skipped_are_recorded_as_values(boolean listen) {
    String inbox = newInbox("outcomes", 5);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).build())
                .meterRegistry(registry)
                .handler(
                    (m, tx) ->
                        switch (m.eventId()) {
                          case "m-0" -> Outcome.dead("unparseable");
                          case "m-1" ->
                              m.retryCount() == 0
                                  ? Outcome.retryAfter(Duration.ofMillis(1), "later")
                                  : Outcome.processed();
                          case "m-2" -> Outcome.skipped("nothing to do");
                          default -> Outcome.processed();
                        })
                .build());
    worker.start();
    insert(inbox, "m", 0, 5, 5);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 4);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + "_dlq WHERE event_id = 'm-0' AND retry_count = 5"))
        .isEqualTo(1);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-1'"))
        .isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(registry.get("inbox.messages.skipped").counter().count()).isEqualTo(1);
              assertThat(registry.get("inbox.messages.processed").counter().count()).isEqualTo(3);
              assertThat(registry.get("inbox.messages.dead_lettered").counter().count())
                  .isEqualTo(1);
              assertThat(registry.get("inbox.messages.failed").counter().count()).isEqualTo(2);
              assertThat(registry.get("inbox.messages.claimed").counter().count()).isEqualTo(6);
            });
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void
      a_batch_handler_exception_rolls_the_batch_back_and_retries_it_in_halves_charging_only_failures_of_one(
          boolean listen) {
    String inbox = newInbox("batchfail", 3);
    AtomicInteger calls = new AtomicInteger();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).batchSize(10).build())
                .batchHandler(
                    (batch, tx) -> {
                      Handle h = tx.unwrap(Handle.class);
                      int call = calls.incrementAndGet();
                      BatchResult result = BatchResult.allProcessed();
                      for (var m : batch) {
                        if (m.eventId().equals("m-3") && m.retryCount() < 2) {
                          // A batch handler has no per-message savepoint: it writes nothing for a
                          // message it fails.
                          result = result.with("m-3", Outcome.retry("not yet"));
                        } else {
                          recordHandled(h, inbox, m.eventId(), "w", m.aggregateId());
                        }
                      }
                      if (call == 1) {
                        throw new IllegalStateException("downstream unavailable");
                      }
                      return result;
                    })
                .build());
    insert(inbox, "m", 0, 5, 5);
    worker.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 5);
    // The first call failed entirely: its writes were rolled back and nobody was charged (a batch
    // handler's exception does not say which message caused it); the batch went to the handler
    // again in halves, which succeeded, apart from m-3's own retry outcomes.
    assertThat(calls.get()).isGreaterThanOrEqualTo(3);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-0'"))
        .isEqualTo(0);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-3'"))
        .isEqualTo(2);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(5);
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_handler_abort_rolls_back_records_nothing_and_stops_the_worker_with_the_failure(
      boolean listen) throws InterruptedException {
    String inbox = newInbox("abort", 3);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).build())
                .batchHandler(
                    (batch, tx) -> {
                      batch.forEach(
                          m ->
                              recordHandled(
                                  tx.unwrap(Handle.class),
                                  inbox,
                                  m.eventId(),
                                  "w",
                                  m.aggregateId()));
                      throw new HandlerAbortException("stdout closed", null);
                    })
                .build());
    insert(inbox, "m", 0, 5, 5);
    worker.start();
    assertThat(worker.awaitTermination(Duration.ofSeconds(30))).isTrue();
    assertThat(worker.isRunning()).isFalse();
    assertThat(worker.failure()).containsInstanceOf(HandlerAbortException.class);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE processed_at IS NULL AND retry_count = 0"))
        .isEqualTo(5);
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isZero();
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_message_handler_abort_and_a_throwing_listener_do_not_leave_anything_half_done(
      boolean listen) throws InterruptedException {
    String inbox = newInbox("abortone", 3);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, listen).build())
                .listener(
                    new dev.pginbox.inbox.WorkerListener() {
                      @Override
                      public void onDispatch(int count, DispatchReason reason) {
                        throw new IllegalStateException("a listener bug");
                      }
                    })
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      if (m.eventId().equals("m-2")) {
                        throw new HandlerAbortException("output gone", null);
                      }
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 5, 5);
    worker.start();
    assertThat(worker.awaitTermination(Duration.ofSeconds(30))).isTrue();
    assertThat(worker.failure()).containsInstanceOf(HandlerAbortException.class);
    // The messages handled before the abort in the same batch are rolled back with it.
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE processed_at IS NULL AND retry_count = 0"))
        .isEqualTo(5);
  }
}
