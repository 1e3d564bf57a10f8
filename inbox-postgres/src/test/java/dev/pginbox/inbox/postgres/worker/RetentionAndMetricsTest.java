package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * The retention sweep keeps the table small (one worker at a time); the meters say what happened.
 */
class RetentionAndMetricsTest extends WorkerTestSupport {

  private static String inboxWithRetention(String prefix, String dedupHours) {
    String name = newInbox(prefix, 1);
    // Zero hours: everything processed or dead is due at once.
    execute(
        "UPDATE inbox.inbox_config SET processed_retention = interval '0', dlq_retention = interval '0', "
            + "dedup_retention = "
            + dedupHours
            + " WHERE inbox_name = '"
            + name
            + "'");
    return name;
  }

  @Test
  void processed_messages_and_dead_letters_are_deleted_in_small_batches_by_the_elected_sweeper() {
    String inbox = inboxWithRetention("retention", "NULL");
    for (int w = 0; w < 2; w++) {
      track(
              PostgresInboxWorker.builder(dataSource(), options(inbox, true).build())
                  .retentionInterval(Duration.ofMillis(100))
                  .retentionBatchSize(7)
                  .handler(
                      (m, tx) ->
                          m.eventId().startsWith("bad") ? Outcome.dead("bad") : Outcome.processed())
                  .build())
          .start();
    }
    insert(inbox, "ok", 0, 60, 60);
    insert(inbox, "bad", 0, 5, 5);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM inbox." + inbox) == 0);
  }

  @Test
  void with_a_longer_dedup_window_processed_rows_lose_their_payload_but_keep_deduplicating() {
    String inbox = inboxWithRetention("dedup", "interval '1 hour'");
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).build())
                .retentionInterval(Duration.ofMillis(100))
                .handler(
                    (m, tx) -> {
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    insert(inbox, "m", 0, 10, 10);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox."
                            + inbox
                            + " WHERE processed_at IS NOT NULL AND payload IS NULL")
                    == 10);
    insert(inbox, "m", 0, 10, 10); // redelivered: the kept event ids swallow them
    insert(inbox, "new", 0, 1, 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 11);
    assertThat(count("SELECT count(*) FROM inbox." + inbox)).isEqualTo(11);
  }

  @Test
  void meters_count_claims_outcomes_batches_wake_ups_and_show_the_backlog() {
    String inbox = newInbox("metrics", 5);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RecordingListener events = new RecordingListener();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).batchSize(4).build())
                .meterRegistry(registry)
                .listener(events)
                .gaugeInterval(Duration.ofMillis(100))
                .handler(
                    (m, tx) ->
                        m.eventId().startsWith("later")
                            ? Outcome.retryAfter(Duration.ofHours(1), "not now")
                            : Outcome.processed())
                .build());
    worker.start();
    // Inserts sent before the LISTEN took effect would wake nobody (the CONNECTED look finds them),
    // and a notification arriving with the listener's CONNECTED wake-up is reported as CONNECTED:
    // wait
    // until both connection wake-ups are past (the coordinator's first look, then the listener's).
    await().atMost(Duration.ofSeconds(10)).until(() -> events.wakeUps(WakeUpCause.CONNECTED) >= 2);
    insert(inbox, "ok", 0, 10, 10);
    insert(inbox, "later", 0, 3, 3);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(
                      registry
                          .get("inbox.messages.processed")
                          .tag("inbox", inbox)
                          .counter()
                          .count())
                  .isEqualTo(10);
              assertThat(registry.get("inbox.messages.failed").counter().count()).isEqualTo(3);
              assertThat(registry.get("inbox.messages.claimed").counter().count()).isEqualTo(13);
              // The three backing-off messages are the backlog.
              assertThat(registry.get("inbox.pending.depth").gauge().value()).isEqualTo(3);
              assertThat(registry.get("inbox.pending.oldest.age").gauge().value())
                  .isGreaterThanOrEqualTo(0);
            });
    assertThat(registry.get("inbox.batch.size").summary().max()).isLessThanOrEqualTo(4);
    assertThat(registry.get("inbox.batch.size").summary().totalAmount()).isEqualTo(13);
    assertThat(registry.get("inbox.handler.duration").timer().count()).isEqualTo(13);
    assertThat(registry.get("inbox.wakeups").tag("cause", "notify").counter().count()).isPositive();
    assertThat(registry.get("inbox.wakeups").tag("cause", "connected").counter().count())
        .isPositive();
    assertThat(registry.find("inbox.reconnects").counter()).isNotNull();
    worker.stop();
    // A stopped worker's gauges are gone (a restarted one registers them anew).
    assertThat(registry.find("inbox.pending.depth").gauge()).isNull();
  }
}
