package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A token's inbox message is {@code token-<id>}. An id can come back (the tokens sequence was
 * reset, a backup restored) or be taken already (a row forged into the inbox by someone who may
 * insert there): neither may make a sign-up fail, and the new token is still sent.
 */
class TokenIdReuseTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void a_reused_or_forged_token_id_breaks_no_sign_up_and_the_token_is_sent() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_token_reuse");
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "100"))) {
      db.signUp("first");
      await().atMost(WAIT).until(() -> c.records().size() == 1 && db.pending() == 0);
      long firstToken = db.count("SELECT max(id) FROM tokens");

      // The account goes (its token with it) and the sequence is reset: the id comes back.
      db.execute(
          "DELETE FROM accounts WHERE login = 'first'",
          "SELECT setval(pg_get_serial_sequence('tokens', 'id'), " + firstToken + ", false)");
      // The next id after that is taken by a forged inbox row, before its token exists.
      db.execute(
          "INSERT INTO inbox.mailroom (event_id, event_type, source, aggregate_id, payload)"
              + " VALUES ('token-"
              + (firstToken + 1)
              + "', 'activation', 'forged', '0', '{}')");

      db.signUp("reused", "forged");
      assertThat(db.count("SELECT max(id) FROM tokens")).isEqualTo(firstToken + 1);

      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.records().stream().map(SenderProtocol.Parsed::login).distinct().count() == 3
                      && db.pending() == 0);
      assertThat(c.records())
          .extracting(SenderProtocol.Parsed::login)
          .contains("first", "reused", "forged");
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.mailroom WHERE event_id LIKE 'token-"
                      + firstToken
                      + ".%' AND payload ->> 'token_id' = '"
                      + firstToken
                      + "'"))
          .isEqualTo(1);
    }
  }
}
