package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A message whose handling fails the same way every time, even with an Error (out of memory while
 * deserialising a huge payload, a stack overflow), is charged like any failure: it ends in the DLQ
 * after max retries with a clear error, and the messages behind it keep flowing.
 */
class RepeatingFailuresTest extends WorkerTestSupport {

  private static void assertDeadWithError(String inbox, String eventId, String error) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox."
                            + inbox
                            + "_dlq WHERE event_id = '"
                            + eventId
                            + "' AND error LIKE '%"
                            + error
                            + "%'")
                    == 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL")
                    == 9);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE event_id <> '"
                    + eventId
                    + "' AND retry_count > 0"))
        .isZero();
  }

  @Test
  void an_out_of_memory_error_in_a_message_handler_dead_letters_that_message_and_the_rest_flow() {
    String inbox = newInbox("oom");
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(5).build())
                .handler(
                    (m, tx) -> {
                      if (m.eventId().equals("m-2")) {
                        throw new OutOfMemoryError("payload too big to deserialise");
                      }
                      return Outcome.processed();
                    })
                .build());
    insert(inbox, "m", 0, 10, 10);
    worker.start();
    assertDeadWithError(inbox, "m-2", "OutOfMemoryError: payload too big");
    assertThat(worker.isRunning()).isTrue();
  }

  @Test
  void a_stack_overflow_in_a_batch_handler_is_narrowed_down_to_its_message() {
    String inbox = newInbox("overflow");
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(10).build())
                .batchHandler(
                    (batch, tx) -> {
                      if (batch.stream().anyMatch(m -> m.eventId().equals("m-7"))) {
                        throw new StackOverflowError("recursive payload");
                      }
                      return BatchResult.allProcessed();
                    })
                .build());
    insert(inbox, "m", 0, 10, 10);
    worker.start();
    assertDeadWithError(inbox, "m-7", "StackOverflowError: recursive payload");
    assertThat(worker.isRunning()).isTrue();
  }
}
