package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Several collectors at once (the original duplicated), and a killed connection (it exited). */
class MultiCollectorTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void two_static_partitions_send_every_token_exactly_once() throws Exception {
    runPartitioned("mailroom_p2", 2, false);
  }

  @Test
  void four_static_partitions_send_every_token_exactly_once() throws Exception {
    runPartitioned("mailroom_p4", 4, false);
  }

  @Test
  void automatic_partitions_send_every_token_exactly_once() throws Exception {
    runPartitioned("mailroom_pauto", 2, true);
  }

  @Test
  void two_processors_in_one_collector_send_every_token_exactly_once() throws Exception {
    runOneCollector("conc2", "MAILROOM_CONCURRENCY", "2");
  }

  @Test
  void a_collector_claiming_ahead_sends_every_token_exactly_once() throws Exception {
    runOneCollector("ahead", "MAILROOM_CLAIM_AHEAD", "1");
  }

  private void runOneCollector(String prefix, String variable, String value) throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_" + prefix);
    try (RunningCollector c =
        RunningCollector.start(
            RunningCollector.env(
                db,
                "MAILROOM_BATCH_LIMIT",
                "5",
                "MAILROOM_BATCH_TIMEOUT",
                "100",
                variable,
                value))) {
      String[] logins = new String[60];
      for (int i = 0; i < logins.length; i++) {
        logins[i] = prefix + "_" + i;
      }
      db.signUp(logins);
      await().atMost(WAIT).until(() -> c.records().size() >= logins.length && db.pending() == 0);
      // Two processors either way, each with its own connection.
      await()
          .atMost(WAIT)
          .until(
              () ->
                  db.count(
                          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                              + " AND application_name = ?",
                          "inbox:mailroom:processor")
                      == 2);
      assertThat(c.stop()).isZero();
      // Every line parses (two batches never interleave their bytes) and every token comes once.
      assertThat(c.records())
          .extracting(SenderProtocol.Parsed::login)
          .hasSize(logins.length)
          .doesNotHaveDuplicates()
          .containsExactlyInAnyOrder(logins);
    }
  }

  private void runPartitioned(String prefix, int collectors, boolean auto) throws Exception {
    MailroomDb db = MailroomDb.create(prefix);
    List<RunningCollector> running = new ArrayList<>();
    try {
      for (int i = 0; i < collectors; i++) {
        Map<String, String> env =
            RunningCollector.env(db, "MAILROOM_BATCH_LIMIT", "5", "MAILROOM_BATCH_TIMEOUT", "100");
        if (auto) {
          env.put("MAILROOM_PARTITION_MODE", "auto");
          env.put("MAILROOM_PARTITION_COUNT", "8");
          env.put("MAILROOM_WORKER_ID", prefix + "-collector-" + i);
        } else {
          env.put("MAILROOM_PARTITION_ID", String.valueOf(i));
          env.put("MAILROOM_PARTITION_COUNT", String.valueOf(collectors));
        }
        running.add(RunningCollector.start(env));
      }
      String[] logins = new String[60];
      for (int i = 0; i < logins.length; i++) {
        logins[i] = prefix + "_" + i;
      }
      if (auto) {
        // The collectors lease under the ids they were given (MAILROOM_WORKER_ID).
        await()
            .atMost(WAIT)
            .until(
                () ->
                    db.count(
                            "SELECT count(DISTINCT owner_id) FROM inbox.inbox_partition_leases"
                                + " WHERE lease_expires_at > now() AND owner_id LIKE ?",
                            prefix + "-collector-%")
                        == collectors);
      }
      db.signUp(logins);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  running.stream().mapToInt(c -> c.records().size()).sum() >= logins.length
                      && db.pending() == 0);
      for (RunningCollector c : running) {
        assertThat(c.stop()).isZero();
      }
      List<String> all = new ArrayList<>();
      for (RunningCollector c : running) {
        c.records().forEach(r -> all.add(r.login()));
      }
      assertThat(all)
          .hasSize(logins.length)
          .doesNotHaveDuplicates()
          .containsExactlyInAnyOrder(logins);
      if (!auto) {
        // Static partitions split the work: every collector owns some accounts of 60.
        assertThat(running).allSatisfy(c -> assertThat(c.records()).isNotEmpty());
      }
    } finally {
      for (RunningCollector c : running) {
        c.close();
      }
    }
  }

  @Test
  void killed_backends_reconnect_and_lose_nothing() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_kill");
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "100"))) {
      await().atMost(WAIT).until(c.collector::isConnected);
      db.signUp("k1", "k2", "k3");
      await().atMost(WAIT).until(() -> c.records().size() == 3);
      try (Connection admin = db.db.connect();
          Statement s = admin.createStatement()) {
        s.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                + " WHERE datname = current_database() AND pid <> pg_backend_pid()");
      }
      db.signUp("k4", "k5", "k6");
      await().atMost(WAIT).until(() -> c.records().size() == 6 && db.pending() == 0);
      assertThat(c.records())
          .extracting(SenderProtocol.Parsed::login)
          .containsExactly("k1", "k2", "k3", "k4", "k5", "k6");
      assertThat(c.stderr()).contains("[PG] WARN: connection lost: ");
      assertThat(c.stderr().split("\\[PG\\] connected\n", -1).length - 1).isGreaterThanOrEqualTo(2);
      assertThat(c.stop()).isZero();
    }
  }
}
