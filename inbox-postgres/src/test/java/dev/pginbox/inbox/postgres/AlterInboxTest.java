package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An existing inbox's options change in one audited step, and what waits follows them. */
class AlterInboxTest extends InboxTestSupport {

  @Test
  void the_options_change_are_read_back_and_audited_and_a_second_change_changes_nothing() {
    manager.createInbox("alter_opts");
    InboxOptions wanted =
        InboxOptions.builder()
            .maxRetries(5)
            .processedRetention(Duration.ofHours(24))
            .dedupRetention(Duration.ofHours(48))
            .backoff(Duration.ofMillis(1500), Duration.ofMinutes(2))
            .degradedAt(60, 500)
            .criticalAt(600, 5000)
            .build();

    assertThat(manager.alterInbox("alter_opts", wanted))
        .containsExactly(
            "backoff_base",
            "backoff_max",
            "critical_age_seconds",
            "critical_pending",
            "dedup_retention",
            "degraded_age_seconds",
            "degraded_pending",
            "max_retries",
            "processed_retention");
    InboxOptions stored = manager.options("alter_opts");
    assertThat(stored.maxRetries()).isEqualTo(5);
    assertThat(stored.processedRetention()).isEqualTo(Duration.ofHours(24));
    assertThat(stored.dedupRetention()).isEqualTo(Duration.ofHours(48));
    assertThat(stored.backoffBase()).isEqualTo(Duration.ofMillis(1500));
    assertThat(stored.backoffMax()).isEqualTo(Duration.ofMinutes(2));
    assertThat(stored.criticalPending()).isEqualTo(5000);
    assertThat(stored.channel()).isEqualTo("inbox_alter_opts");
    assertThat(
            strings(
                "SELECT arguments -> 'max_retries' ->> 'from' || '->' || (arguments -> 'max_retries' ->> 'to') "
                    + "FROM inbox.operator_log WHERE inbox_name = 'alter_opts' AND action = 'alter_inbox'"))
        .containsExactly("3->5");

    assertThat(manager.alterInbox("alter_opts", stored)).isEmpty();
    assertThat(
            manager.alterInbox(
                "alter_opts",
                InboxOptions.builder()
                    .maxRetries(5)
                    .processedRetention(Duration.ofHours(24))
                    .backoff(Duration.ofMillis(1500), Duration.ofMinutes(2))
                    .degradedAt(60, 500)
                    .criticalAt(600, 5000)
                    .build()))
        .containsExactly("dedup_retention");
    assertThat(manager.options("alter_opts").dedupRetention()).isNull();
  }

  @Test
  void more_retries_make_a_dead_letter_wait_again_and_fewer_make_a_retried_message_dead()
      throws Exception {
    PostgresInbox inbox =
        manager.createInbox("alter_retries", InboxOptions.builder().maxRetries(1).build());
    manager.enableOrdering("alter_retries");
    inbox.send(NewMessage.of("dead", "t", "a1", null));
    inbox.send(NewMessage.of("other", "t", "a2", null));
    jdbi.useTransaction(
        h -> {
          h.createQuery("SELECT event_id FROM inbox.claim_alter_retries(10)")
              .mapTo(String.class)
              .list();
          h.execute("SELECT inbox.mark_failed('alter_retries', 'dead', 'boom', interval '0')");
          h.execute("SELECT inbox.mark_failed('alter_retries', 'other', 'boom', interval '0')");
        });
    assertThat(count("SELECT count(*) FROM inbox.alter_retries_dlq")).isEqualTo(2);
    // Claims that find nothing move their floors past both.
    for (int i = 0; i < 3; i++) {
      Thread.sleep(250);
      assertThat(claim("alter_retries")).isEmpty();
    }

    manager.alterInbox("alter_retries", InboxOptions.builder().maxRetries(3).build());
    assertThat(count("SELECT count(*) FROM inbox.alter_retries_dlq")).isZero();
    Thread.sleep(250);
    // Claimed again, and failed a second time: two failures of three.
    List<String> failed =
        jdbi.inTransaction(
            h -> {
              List<String> ids =
                  h.createQuery("SELECT event_id FROM inbox.claim_alter_retries(10)")
                      .mapTo(String.class)
                      .list();
              for (String id : ids) {
                h.execute("SELECT inbox.mark_failed('alter_retries', ?, 'boom', interval '0')", id);
              }
              return ids;
            });
    assertThat(failed).containsExactlyInAnyOrder("dead", "other");
    assertThat(count("SELECT count(*) FROM inbox.alter_retries_pending")).isEqualTo(2);

    manager.alterInbox("alter_retries", InboxOptions.builder().maxRetries(2).build());
    assertThat(count("SELECT count(*) FROM inbox.alter_retries_dlq")).isEqualTo(2);
    assertThat(claim("alter_retries")).isEmpty();
  }

  @Test
  void an_invalid_change_changes_nothing_and_an_unknown_inbox_is_not_found() {
    manager.createInbox("alter_bad");
    assertThatThrownBy(
            () -> sql("SELECT inbox.alter_inbox('alter_bad', p_backoff_max => interval '1 ms')"))
        .hasMessageContaining("backoff must satisfy 0 <= base <= max");
    assertThat(manager.options("alter_bad").backoffMax()).isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(() -> manager.alterInbox("alter_none", InboxOptions.defaults()))
        .isInstanceOf(InboxNotFoundException.class);
    assertThatThrownBy(() -> manager.options("alter_none"))
        .isInstanceOf(InboxNotFoundException.class);
  }

  private static List<String> claim(String inbox) {
    return jdbi.inTransaction(
        h ->
            h.createQuery("SELECT event_id FROM inbox.claim_" + inbox + "(10)")
                .mapTo(String.class)
                .list());
  }
}
