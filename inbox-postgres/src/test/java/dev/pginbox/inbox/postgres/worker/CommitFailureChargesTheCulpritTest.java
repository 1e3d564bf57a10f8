package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * A commit that fails (here a deferred unique constraint that one message's writes break) charges
 * only the message whose writes broke it: the batch is claimed again in halves, down to that one
 * message, and the others are processed without a failed attempt.
 */
class CommitFailureChargesTheCulpritTest extends WorkerTestSupport {

  private static final int MAX_RETRIES = 3;
  private static final int MESSAGES = 16;
  private static final String CULPRIT = "m-11";

  /** A table whose key is checked only at commit; 'taken' is the culprit's clash. */
  private static void deferredKeys(String inbox) {
    execute(
        "CREATE TABLE "
            + inbox
            + "_keys (k text, CONSTRAINT "
            + inbox
            + "_keys_unique UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)");
    execute("INSERT INTO " + inbox + "_keys VALUES ('taken')");
  }

  private static void write(Handle h, String inbox, String eventId) {
    h.execute(
        "INSERT INTO " + inbox + "_keys VALUES (?)", eventId.equals(CULPRIT) ? "taken" : eventId);
  }

  private static boolean onlyTheCulpritLeft(String inbox) {
    return count("SELECT count(*) FROM inbox." + inbox + "_dlq") == 1
        && count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL") == 1;
  }

  private static void assertOnlyTheCulpritCharged(String inbox) {
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + "_dlq WHERE event_id = '"
                    + CULPRIT
                    + "' AND retry_count = "
                    + MAX_RETRIES
                    + " AND error LIKE '%duplicate key%'"))
        .isOne();
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE event_id <> '"
                    + CULPRIT
                    + "' AND processed_at IS NOT NULL AND retry_count = 0"))
        .isEqualTo(MESSAGES - 1);
    assertThat(count("SELECT count(*) FROM " + inbox + "_keys")).isEqualTo(MESSAGES);
  }

  @Test
  void a_worker_narrows_a_failed_commit_down_to_the_message_that_broke_it() {
    String inbox = newInbox("commitfail", MAX_RETRIES);
    deferredKeys(inbox);
    insert(inbox, "m", 0, MESSAGES, MESSAGES);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, false).batchSize(32).build())
                .handler(
                    (m, tx) -> {
                      write(tx.unwrap(Handle.class), inbox, m.eventId());
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> onlyTheCulpritLeft(inbox));
    assertOnlyTheCulpritCharged(inbox);
  }

  @Test
  void run_once_with_a_batch_handler_narrows_it_down_too() {
    String inbox = newInbox("commitfail_once", MAX_RETRIES);
    deferredKeys(inbox);
    insert(inbox, "m", 0, MESSAGES, MESSAGES);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, false).batchSize(32).build())
                .batchHandler(
                    (batch, tx) -> {
                      Handle h = tx.unwrap(Handle.class);
                      batch.forEach(m -> write(h, inbox, m.eventId()));
                      return BatchResult.allProcessed();
                    })
                .build());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              worker.runOnce();
              return onlyTheCulpritLeft(inbox);
            });
    assertOnlyTheCulpritCharged(inbox);
  }
}
