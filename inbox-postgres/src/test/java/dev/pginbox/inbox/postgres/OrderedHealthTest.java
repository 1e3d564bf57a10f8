package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * On an ordered inbox, messages behind a dead or backing-off head wait for that head, not for a
 * worker: health counts them as blocked and keeps them out of its age and pending checks.
 */
class OrderedHealthTest extends InboxTestSupport {

  @Test
  void messages_behind_a_dead_head_are_blocked_not_late() throws Exception {
    PostgresInbox inbox =
        manager.createInbox(
            "health_blocked",
            InboxOptions.builder().maxRetries(1).degradedAt(30, 10).criticalAt(120, 15).build());
    manager.enableOrdering("health_blocked");
    inbox.sendAll(
        IntStream.range(0, 20)
            .mapToObj(i -> NewMessage.of("stuck-" + i, "t", "stuck", null))
            .toList());
    jdbi.useTransaction(
        h -> {
          h.createQuery("SELECT event_id FROM inbox.claim_health_blocked(1)")
              .mapTo(String.class)
              .one();
          h.execute("SELECT inbox.mark_failed('health_blocked', 'stuck-0', 'boom', interval '0')");
        });
    // Long ago, as if the head had died ten minutes back.
    sql("UPDATE inbox.health_blocked SET received_at = now() - interval '10 minutes'");
    inbox.send(NewMessage.of("fine", "t", "other", null));

    String health = "SELECT inbox.inbox_health('health_blocked') ->> ";
    assertThat(count(health + "'blocked_count'")).isEqualTo(19);
    // The other aggregate's message is the oldest that waits for a worker: just sent.
    assertThat(count(health + "'oldest_pending_age_seconds'")).isLessThan(30);
    assertThat(strings(health + "'status'")).containsExactly("degraded");
    assertThat(
            strings(
                "SELECT jsonb_array_elements_text(inbox.inbox_health('health_blocked') -> 'status_reasons')"))
        .containsExactly("dlq_count: degraded");
    assertThat(manager.inbox("health_blocked").health().blockedCount()).isEqualTo(19);

    // Replayed, the head can be claimed: nothing is blocked, and the age is the head's.
    sql("SELECT inbox.replay_inbox_messages('health_blocked', ARRAY['stuck-0'])");
    assertThat(count(health + "'blocked_count'")).isZero();
    assertThat(strings(health + "'status'")).containsExactly("critical");
  }
}
