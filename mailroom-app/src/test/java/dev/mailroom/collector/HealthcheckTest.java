package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MAILROOM_HEALTHCHECK_INTERVAL keeps the original's meaning: idle that long, the collector checks
 * its connections and replaces a dead one at once, not when the next token finds it dead. (It used
 * to be validated and printed only: a processing connection killed overnight stayed dead until the
 * morning's first token failed on it.)
 */
class HealthcheckTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private static final String PROCESSOR =
      "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE datname = current_database()"
          + " AND application_name = 'inbox:mailroom:processor'";

  @Test
  void a_connection_killed_while_idle_is_noticed_and_replaced_before_the_next_token()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_healthcheck");
    Map<String, String> env =
        RunningCollector.env(
            db, "MAILROOM_BATCH_TIMEOUT", "100", "MAILROOM_HEALTHCHECK_INTERVAL", "1000");
    try (RunningCollector c = RunningCollector.start(env)) {
      await().atMost(WAIT).until(c.collector::isConnected);
      db.signUp("before");
      await().atMost(WAIT).until(() -> c.records().size() == 1);
      long killed = db.count(PROCESSOR);
      assertThat(killed).isPositive();

      db.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
              + " AND application_name LIKE 'inbox:mailroom:%'");

      // No token arrives: only the healthcheck can find the processing connection dead.
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertThat(c.stderr()).contains("WARN: processor connection lost: "));
      await().atMost(WAIT).until(() -> db.count(PROCESSOR) != 0);
      assertThat(db.count(PROCESSOR)).isNotEqualTo(killed);
      await().atMost(WAIT).until(c.collector::isConnected);

      int warnings = c.stderr().split("processor connection lost", -1).length;
      db.signUp("after");
      await().atMost(WAIT).until(() -> c.records().size() == 2);
      assertThat(c.records())
          .extracting(SenderProtocol.Parsed::login)
          .isEqualTo(List.of("before", "after"));
      // The new token found a live connection: no batch failed on a dead one.
      assertThat(c.stderr().split("processor connection lost", -1).length).isEqualTo(warnings);
      assertThat(c.stop()).isZero();
    }
  }
}
