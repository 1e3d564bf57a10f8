package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * A failure that is not the tokens' fault (a grant revoked from the collector's role) never charges
 * or dead-letters them: the collector logs the SQLSTATE, keeps retrying, and sends them once the
 * grant is back. (It used to send the whole batch to the DLQ within seconds, silently.)
 */
class RevokedGrantTest {

  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void a_revoked_select_on_tokens_is_logged_and_never_dead_letters_a_token() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_revoked");
    String role = "mailroom_collector_" + ThreadLocalRandom.current().nextInt(1_000_000);
    db.execute(
        "CREATE ROLE " + role + " LOGIN PASSWORD 'pw'",
        "GRANT USAGE ON SCHEMA inbox, mailroom, public TO " + role,
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA inbox TO " + role,
        "GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA inbox TO " + role,
        "GRANT SELECT ON public.accounts, public.tokens TO " + role);
    try {
      String url = db.url().replaceAll("([?&])(user|password)=[^&]*", "$1");
      url += (url.contains("?") ? "&" : "?") + "user=" + role + "&password=pw";
      url = url.replace("?&", "?").replaceAll("&&+", "&");
      Map<String, String> env =
          RunningCollector.env(db, "MAILROOM_DATABASE_URL", url, "MAILROOM_BATCH_TIMEOUT", "100");
      try (RunningCollector c = RunningCollector.start(env)) {
        await().atMost(WAIT).until(c.collector::isConnected);
        db.signUp("before");
        await().atMost(WAIT).until(() -> c.records().size() == 1);

        db.execute("REVOKE SELECT ON public.tokens FROM " + role);
        db.signUp("r1", "r2", "r3");
        // Either the failure is reported (with its SQLSTATE) or, as it used to, the tokens are
        // charged a failed attempt: whichever comes first.
        await()
            .atMost(WAIT)
            .until(
                () ->
                    c.stderr().contains("42501")
                        || db.count("SELECT count(*) FROM inbox.mailroom WHERE retry_count > 0")
                            > 0);
        assertThat(c.stderr()).contains("42501");
        assertThat(db.count("SELECT count(*) FROM inbox.mailroom WHERE retry_count > 0")).isZero();
        assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
        assertThat(db.pending()).isEqualTo(3);

        db.execute("GRANT SELECT ON public.tokens TO " + role);
        await().atMost(WAIT).until(() -> c.records().size() == 4 && db.pending() == 0);
        assertThat(c.records())
            .extracting(SenderProtocol.Parsed::login)
            .containsExactlyInAnyOrder("before", "r1", "r2", "r3");
        assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
      }
    } finally {
      db.execute(
          "REVOKE ALL ON ALL TABLES IN SCHEMA inbox FROM " + role,
          "REVOKE ALL ON ALL SEQUENCES IN SCHEMA inbox FROM " + role,
          "REVOKE ALL ON public.accounts, public.tokens FROM " + role,
          "REVOKE ALL ON SCHEMA inbox, mailroom, public FROM " + role,
          "DROP ROLE " + role);
    }
  }
}
