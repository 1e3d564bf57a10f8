package dev.pginbox.inbox.postgres.internal.worker.wake;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The switch itself; what it is for (wake-ups within a millisecond under a steady stream of
 * commits) is a latency, measured by the end-to-end benchmark rather than asserted here.
 */
class PromptNotificationsTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("prompt_notify");

  @Test
  void the_pinned_driver_lets_the_trailing_wait_be_switched_off() throws Exception {
    try (Connection c = DATABASE.connect()) {
      assertThat(PromptNotifications.enable(c)).isTrue();
    }
  }

  @Test
  void with_the_switch_every_notification_still_arrives() throws Exception {
    try (Connection listener = DATABASE.connect();
        Connection sender = DATABASE.connect()) {
      try (Statement s = listener.createStatement()) {
        s.execute("LISTEN prompt");
      }
      assertThat(PromptNotifications.enable(listener)).isTrue();
      List<String> got = new ArrayList<>();
      PGConnection pg = listener.unwrap(PGConnection.class);
      try (Statement s = sender.createStatement()) {
        for (int i = 0; i < 50; i++) {
          s.execute("SELECT pg_notify('prompt', '" + i + "')");
          if (i % 10 == 0) {
            collect(pg.getNotifications(1), got);
          }
        }
      }
      for (int wait = 0; wait < 100 && got.size() < 50; wait++) {
        collect(pg.getNotifications(100), got);
      }
      assertThat(got).hasSize(50).doesNotHaveDuplicates();
    }
  }

  private static void collect(PGNotification[] notifications, List<String> into) {
    if (notifications != null) {
      for (PGNotification n : notifications) {
        into.add(n.getParameter());
      }
    }
  }
}
