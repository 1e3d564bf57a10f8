package dev.pginbox.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The test kit of inbox-testing (docs/testing.md), on the real worker. */
@InboxTest
class InboxTestKitTest {

  private static InboxWorker worker(DataSource ds, String inbox, RecordingHandler handler) {
    return PostgresInboxWorker.builder(ds, WorkerOptions.builder(inbox).batchSize(2).build())
        .handler(handler)
        .build();
  }

  @Test
  void drains_synchronously_and_tells_processed_retrying_and_dead_letters(
      InboxManager manager, InboxProbe probe, DataSource ds) {
    Inbox inbox = manager.createInbox("kit_outcomes", InboxOptions.builder().maxRetries(2).build());
    inbox.sendAll(
        List.of(
            NewMessage.of("ok", "t", "A", "{}"),
            NewMessage.of("flaky", "t", "B", "{}"),
            NewMessage.of("poison", "t", "C", "{}")));
    RecordingHandler handler =
        new RecordingHandler(
            (m, tx) ->
                switch (m.eventId()) {
                  case "poison" -> throw new IllegalStateException("cannot parse " + m.eventId());
                  case "flaky" ->
                      m.retryCount() == 0 ? Outcome.retry("try again") : Outcome.processed();
                  default -> Outcome.processed();
                });
    InboxWorker worker = worker(ds, "kit_outcomes", handler);

    assertThat(probe.drain(worker)).isEqualTo(3);
    probe.message("kit_outcomes", "ok").assertProcessed();
    probe.message("kit_outcomes", "flaky").assertRetrying(1);
    probe.message("kit_outcomes", "poison").assertRetrying(1);
    assertThatThrownBy(() -> probe.message("kit_outcomes", "flaky").assertProcessed())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("retrying (retry_count 1 of 2, error 'try again')");

    probe.drainIncludingRetries(worker, "kit_outcomes");

    probe.message("kit_outcomes", "flaky").assertProcessed();
    probe.message("kit_outcomes", "poison").assertDeadLetter("cannot parse poison");
    assertThat(inbox.deadLetters(10)).extracting(InboxMessage::eventId).containsExactly("poison");
  }

  @Test
  void draining_with_retries_also_takes_retries_whose_backoff_ran_out_on_its_own(
      InboxManager manager, InboxProbe probe, DataSource ds) throws Exception {
    Inbox inbox =
        manager.createInbox(
            "kit_backoff",
            InboxOptions.builder()
                .backoff(java.time.Duration.ofHours(1), java.time.Duration.ofHours(1))
                .build());
    inbox.send(NewMessage.of("flaky", "t", "B", "{}"));
    RecordingHandler handler =
        new RecordingHandler(
            (m, tx) -> m.retryCount() == 0 ? Outcome.retry("try again") : Outcome.processed());
    InboxWorker worker = worker(ds, "kit_backoff", handler);
    assertThat(probe.drain(worker)).isEqualTo(1);
    // The backoff runs out (an hour, so that no drain of a slow machine outlives it by itself).
    try (var c = ds.getConnection();
        var s = c.createStatement()) {
      s.execute("UPDATE inbox.kit_backoff SET next_attempt_at = now() WHERE event_id = 'flaky'");
    }

    probe.drainIncludingRetries(worker, "kit_backoff");

    probe.message("kit_backoff", "flaky").assertProcessed();
  }

  @Test
  void records_the_order_messages_were_handled_in(
      InboxManager manager, InboxProbe probe, DataSource ds) {
    manager.createInbox("kit_order");
    manager.enableOrdering("kit_order");
    Inbox inbox = manager.inbox("kit_order");
    for (String id : List.of("a1", "b1", "a2", "b2", "a3")) {
      inbox.send(NewMessage.of(id, "t", id.substring(0, 1), "{}"));
    }
    RecordingHandler handler = RecordingHandler.processingAll();

    probe.drain(worker(ds, "kit_order", handler));

    assertThat(handler.handledByAggregate())
        .containsEntry("a", List.of("a1", "a2", "a3"))
        .containsEntry("b", List.of("b1", "b2"));
    assertThatThrownBy(() -> handler.assertHandledInOrder("a3", "a2"))
        .isInstanceOf(AssertionError.class);
  }
}
