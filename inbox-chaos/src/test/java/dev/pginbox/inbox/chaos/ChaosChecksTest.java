package dev.pginbox.inbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The suite's verdict can fail: a lost, a doubled and an inverted effect are each reported. */
class ChaosChecksTest {

  @Test
  void a_lost_a_doubled_and_an_out_of_order_effect_are_each_reported() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("chaos_checks");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource());
    manager.install();
    PostgresInbox inbox = manager.createInbox(ChaosRun.INBOX);
    inbox.sendAll(
        List.of(
            NewMessage.of("a1", "t", "A", "{\"v\": 1}"),
            NewMessage.of("a2", "t", "A", "{\"v\": 2}"),
            NewMessage.of("b1", "t", "B", "{\"v\": 1}"),
            NewMessage.of("c1", "t", "C", "{\"v\": 1}")));
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(ChaosWorker.EFFECTS_DDL);
      s.execute("UPDATE inbox.chaos SET processed_at = now()");
      s.execute(
          "INSERT INTO chaos_effects (event_id, aggregate_id, version, worker) VALUES"
              + " ('a2', 'A', 2, 'w'), ('a1', 'A', 1, 'w'),"
              + " ('b1', 'B', 1, 'w'), ('b1', 'B', 1, 'w')");
      ChaosChecks checks = ChaosChecks.read(c, ChaosRun.INBOX);
      assertThat(checks.violations(4))
          .containsExactlyInAnyOrder(
              "1 messages were applied more than once",
              "1 stored messages were never applied (3 applied)",
              "3 effects broke their aggregate's order");

      s.execute("DELETE FROM chaos_effects");
      s.execute(
          "INSERT INTO chaos_effects (event_id, aggregate_id, version, worker) VALUES"
              + " ('a1', 'A', 1, 'w'), ('b1', 'B', 1, 'w'), ('a2', 'A', 2, 'w'), ('c1', 'C', 1, 'w')");
      assertThat(ChaosChecks.read(c, ChaosRun.INBOX).violations(4)).isEmpty();
    }
  }
}
