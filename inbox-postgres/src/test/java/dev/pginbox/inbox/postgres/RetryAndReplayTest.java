package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetryAndReplayTest extends InboxTestSupport {

  /**
   * mark_failed and the resulting delay (next_attempt_at - now()) in seconds, in one transaction.
   */
  private static double failAndMeasureDelay(String inbox, String eventId) {
    return jdbi.inTransaction(
        h -> {
          h.select("SELECT inbox.mark_failed(?, ?, 'e')", inbox, eventId).mapTo(String.class).one();
          return h.select(
                  "SELECT extract(epoch FROM next_attempt_at - now())::float8 FROM inbox."
                      + inbox
                      + " WHERE event_id = ?",
                  eventId)
              .mapTo(Double.class)
              .one();
        });
  }

  @Test
  void backoff_doubles_per_failure_with_jitter_in_the_upper_half_and_is_capped() {
    PostgresInbox inbox =
        manager.createInbox(
            "backoff",
            InboxOptions.builder()
                .maxRetries(6)
                .backoff(Duration.ofSeconds(10), Duration.ofSeconds(25))
                .build());
    // Expected uncapped delays 10, 20, 40, 80, 160 s, capped at 25 s; jitter keeps [d/2, d].
    double[] caps = {10, 20, 25, 25, 25};
    for (int m = 0; m < 20; m++) {
      inbox.send(NewMessage.of("m" + m, "t", "a", null));
      for (int failure = 0; failure < caps.length; failure++) {
        double delay = failAndMeasureDelay("backoff", "m" + m);
        assertThat(delay).as("failure %d", failure + 1).isBetween(caps[failure] / 2, caps[failure]);
      }
    }
    // Jitter really spreads: 20 messages do not all wait the same time after their first failure.
    assertThat(
            count(
                "SELECT count(DISTINCT next_attempt_at) FROM inbox.backoff WHERE retry_count = 5"))
        .isGreaterThan(1);
  }

  @Test
  void an_explicit_retry_delay_replaces_the_backoff_and_a_backing_off_message_is_not_claimed() {
    manager.createInbox("explicit").send(NewMessage.of("x", "t", "a", null));
    double delay =
        jdbi.inTransaction(
            h -> {
              h.select("SELECT inbox.mark_failed('explicit', 'x', 'later', interval '42 seconds')")
                  .mapTo(String.class)
                  .one();
              return h.select(
                      "SELECT extract(epoch FROM next_attempt_at - now())::float8 FROM inbox.explicit")
                  .mapTo(Double.class)
                  .one();
            });
    assertThat(delay).isCloseTo(42.0, within(0.001));
    assertThat(strings("SELECT event_id FROM inbox.claim_explicit(10)")).isEmpty();
    sql("UPDATE inbox.explicit SET next_attempt_at = now() - interval '1 second'");
    assertThat(strings("SELECT event_id FROM inbox.claim_explicit(10)")).containsExactly("x");
  }

  @Test
  void a_claimed_message_that_fails_in_the_claiming_transaction_goes_back_to_pending_then_dead() {
    PostgresInbox inbox =
        manager.createInbox("claim_fail", InboxOptions.builder().maxRetries(2).build());
    inbox.send(NewMessage.of("x", "t", "a", null));
    for (String expected : List.of("retry", "dead")) {
      String outcome =
          jdbi.inTransaction(
              h -> {
                assertThat(
                        h.select("SELECT event_id FROM inbox.claim_claim_fail(10)")
                            .mapTo(String.class)
                            .list())
                    .containsExactly("x");
                return h.select("SELECT inbox.mark_failed('claim_fail', 'x', 'bad')")
                    .mapTo(String.class)
                    .one();
              });
      assertThat(outcome).isEqualTo(expected);
      sql("UPDATE inbox.claim_fail SET next_attempt_at = '-infinity'");
    }
    assertThat(inbox.deadLetters(10)).extracting(InboxMessage::eventId).containsExactly("x");
    assertThat(strings("SELECT event_id FROM inbox.claim_claim_fail(10)"))
        .as("dead is never claimed")
        .isEmpty();
  }

  @Test
  void replay_resets_only_dead_letters() {
    PostgresInbox inbox =
        manager.createInbox("replay", InboxOptions.builder().maxRetries(1).build());
    inbox.sendAll(
        List.of(
            NewMessage.of("dead1", "order", "a", null),
            NewMessage.of("dead2", "order", "b", null),
            NewMessage.of("dead3", "invoice", "c", null),
            NewMessage.of("done", "order", "d", null),
            NewMessage.of("waiting", "order", "e", null),
            NewMessage.of("failed-once", "order", "f", null)));
    sql("UPDATE inbox.replay SET retry_count = 1, error = 'kaput' WHERE event_id LIKE 'dead%'");
    inbox.markProcessed("done");
    sql("UPDATE inbox.replay SET error = 'temporary' WHERE event_id = 'failed-once'");
    String before = snapshot("done", "waiting", "failed-once");

    assertThat(
            inbox
                .operations()
                .replay(DeadLetterSelection.ids(List.of("dead1", "done", "waiting", "missing"))))
        .isEqualTo(1);
    assertThat(inbox.operations().replay(DeadLetterSelection.eventType("order")))
        .isEqualTo(1); // dead2 only
    assertThat(inbox.operations().replay(DeadLetterSelection.eventType("order"))).isZero();
    assertThat(snapshot("done", "waiting", "failed-once"))
        .as("processed and pending untouched")
        .isEqualTo(before);

    assertThat(inbox.deadLetters(10)).extracting(InboxMessage::eventId).containsExactly("dead3");
    assertThat(
            strings(
                "SELECT event_id || ':' || retry_count || ':' || error || ':' || (next_attempt_at = '-infinity')"
                    + " FROM inbox.replay WHERE event_id IN ('dead1', 'dead2') ORDER BY 1"))
        .as("retry count reset, error kept, due at once")
        .containsExactly("dead1:0:kaput:true", "dead2:0:kaput:true");
    assertThat(strings("SELECT event_id FROM inbox.claim_replay(10)"))
        .containsExactlyInAnyOrder("dead1", "dead2", "waiting", "failed-once");
  }

  @Test
  void replay_needs_exactly_one_selector() {
    manager.createInbox("replay_args");
    assertThatThrownBy(() -> sql("SELECT inbox.replay_inbox_messages('replay_args')"))
        .hasMessageContaining("exactly one of p_event_ids and p_event_type");
    assertThatThrownBy(
            () -> sql("SELECT inbox.replay_inbox_messages('replay_args', ARRAY['a'], 'order')"))
        .hasMessageContaining("exactly one of p_event_ids and p_event_type");
  }

  private static String snapshot(String... ids) {
    return String.join(
        "|",
        strings(
            "SELECT row(event_id, processed_at, retry_count, error, next_attempt_at)::text"
                + " FROM inbox.replay WHERE event_id = ANY(?) ORDER BY event_id",
            (Object) ids));
  }
}
