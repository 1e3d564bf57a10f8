package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * WorkerOptions.lowerPriorityEvery: however many urgent messages wait, every n-th batch goes to the
 * messages below them. Counted over the batches of one processor (batches of one message), no clock
 * involved.
 */
class LowerPriorityShareTest extends WorkerTestSupport {

  private List<String> firstHandled(int every, int count) {
    String inbox = newInbox("share");
    execute(
        "SELECT inbox.enable_inbox_priority('"
            + inbox
            + "', 'event_type', '{\"urgent\": 1, \"normal\": 2}'::jsonb)");
    execute(
        "INSERT INTO inbox."
            + inbox
            + " (event_id, event_type, payload) SELECT 'urgent-' || i, 'urgent', '{}'"
            + " FROM generate_series(1, 100) i");
    execute(
        "INSERT INTO inbox."
            + inbox
            + " (event_id, event_type, payload) SELECT 'normal-' || i, 'normal', '{}'"
            + " FROM generate_series(1, 20) i");
    List<String> handled = new CopyOnWriteArrayList<>();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true).batchSize(1).lowerPriorityEvery(every).build())
                .handler(
                    (m, tx) -> {
                      handled.add(m.eventId());
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() >= count);
    worker.stop();
    return handled.subList(0, count);
  }

  @Test
  void every_fourth_batch_goes_to_the_lower_priority_while_urgent_messages_keep_waiting() {
    List<String> first = firstHandled(4, 40);
    assertThat(first.stream().filter(id -> id.startsWith("normal-"))).hasSize(10);
    for (int i = 0; i < 40; i++) {
      assertThat(first.get(i)).startsWith(i % 4 == 3 ? "normal-" : "urgent-");
    }
    // Within each priority, arrival order.
    assertThat(first.stream().filter(id -> id.startsWith("normal-")).toList())
        .startsWith("normal-1", "normal-2", "normal-3");
  }

  @Test
  void without_a_share_the_lower_priority_waits_for_every_urgent_message() {
    List<String> first = firstHandled(0, 40);
    assertThat(first).allSatisfy(id -> assertThat(id).startsWith("urgent-"));
  }
}
