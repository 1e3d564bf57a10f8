package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.InboxOperations;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pause, resume and retry-now: what every claim honours, and what the audit log records. */
class QueueControlsTest extends InboxTestSupport {

  private static List<String> claim(String inbox) {
    return jdbi.inTransaction(
        h ->
            h.createQuery("SELECT event_id FROM inbox.claim_" + inbox + "(10)")
                .mapTo(String.class)
                .list());
  }

  @Test
  void a_paused_inbox_hands_out_nothing_until_resumed_ordered_or_not() throws Exception {
    for (boolean ordered : new boolean[] {false, true}) {
      String name = ordered ? "paused_ordered" : "paused_plain";
      PostgresInbox inbox = manager.createInbox(name);
      if (ordered) {
        manager.enableOrdering(name);
      }
      inbox.send(NewMessage.of("m1", "t", "a", null));
      InboxOperations ops = inbox.operations().asActor("alice");

      assertThat(ops.pause()).isTrue();
      assertThat(ops.pause()).isFalse();
      assertThat(ops.pausedSince()).isNotNull();
      Thread.sleep(250); // every session's claims see it within 200 ms
      assertThat(claim(name)).isEmpty();
      assertThat(count("SELECT inbox.count_waiting('" + name + "', 10)")).isZero();
      assertThat(inbox.health().statusReasons()).contains("paused: degraded");

      assertThat(ops.resume()).isTrue();
      assertThat(ops.resume()).isFalse();
      assertThat(ops.pausedSince()).isNull();
      Thread.sleep(250);
      assertThat(claim(name)).containsExactly("m1");
      assertThat(
              strings(
                  "SELECT action || ' by ' || actor FROM inbox.operator_log"
                      + " WHERE inbox_name = ? ORDER BY id",
                  name))
          .containsSubsequence("pause by alice", "resume by alice");
    }
  }

  @Test
  void retry_now_makes_a_backing_off_message_due_and_leaves_the_others_alone() {
    PostgresInbox inbox =
        manager.createInbox(
            "retry_now",
            InboxOptions.builder().backoff(Duration.ofHours(1), Duration.ofHours(1)).build());
    inbox.send(NewMessage.of("failing", "t", "a", null));
    inbox.send(NewMessage.of("due", "t", "b", null));
    jdbi.useTransaction(
        h -> {
          h.createQuery("SELECT event_id FROM inbox.claim_retry_now(1)").mapTo(String.class).one();
          h.execute("SELECT inbox.mark_failed('retry_now', 'failing', 'boom')");
        });
    assertThat(claim("retry_now")).containsExactly("due");
    assertThat(claim("retry_now")).isEmpty(); // backing off for an hour

    assertThat(inbox.operations().retryNow(List.of("failing", "due", "unknown"))).isEqualTo(1);
    assertThat(claim("retry_now")).containsExactly("failing");
    assertThat(
            strings(
                "SELECT action || ' ' || rows_affected FROM inbox.operator_log"
                    + " WHERE inbox_name = 'retry_now'"))
        .contains("retry_now 1");
  }
}
