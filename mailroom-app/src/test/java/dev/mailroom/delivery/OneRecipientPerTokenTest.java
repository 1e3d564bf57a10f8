package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.TestSmtpServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A token's email goes to the one address stored for its account, or to nobody: a stored value a
 * mail library would read as a display name in front of another mailbox, or as a group of several,
 * is dead-lettered with the reason, never sent, never retried. The rows here predate the schema's
 * check (an upgraded database), which refuses such values at sign-up.
 */
class OneRecipientPerTokenTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  static final String DISPLAY_NAME = "\"w2@x.test\" <attacker@evil.test>";
  static final String GROUP = "grp: a@evil.test, b@evil.test;";

  @Test
  void smtp_sends_a_display_name_or_group_address_to_nobody_and_dead_letters_it() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_one_rcpt_smtp");
    db.allowLegacyAccounts();
    List<String> recipients = Collections.synchronizedList(new ArrayList<>());
    try (TestSmtpServer smtp =
            new TestSmtpServer(
                    address -> {
                      recipients.add(address);
                      return null;
                    })
                .start();
        RunningCollector c = RunningCollector.start(SmtpDeliveryTest.smtpEnv(db, smtp.port()))) {
      signUp(db, DISPLAY_NAME, "w2", GROUP, "grp", "fine@x.test", "fine");
      await().atMost(WAIT).until(() -> waiting(db) == 0);
      assertThat(recipients).containsExactly("fine@x.test");
      assertDeadLettered(db, "w2", "grp");
      assertThat(c.stop()).isZero();
    }
  }

  @Test
  void stdout_prints_no_line_for_a_display_name_or_group_address_and_dead_letters_it()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_one_rcpt_stdout");
    db.allowLegacyAccounts();
    try (RunningCollector c =
        RunningCollector.start(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "200"))) {
      signUp(db, DISPLAY_NAME, "w2", GROUP, "grp", "fine@x.test", "fine");
      await().atMost(WAIT).until(() -> waiting(db) == 0);
      assertThat(c.records()).extracting(r -> r.email()).containsExactly("fine@x.test");
      assertThat(c.stdout()).doesNotContain("evil.test");
      assertDeadLettered(db, "w2", "grp");
      assertThat(c.stop()).isZero();
    }
  }

  /** Messages not yet processed nor dead (retries backing off count as waiting). */
  static long waiting(MailroomDb db) throws Exception {
    return db.count("SELECT count(*) FROM inbox.mailroom_pending");
  }

  /** One transaction: the tokens arrive together and make one batch. */
  static void signUp(MailroomDb db, String... emailsAndLogins) throws Exception {
    try (Connection c = db.db.connect();
        PreparedStatement s =
            c.prepareStatement("INSERT INTO accounts (email, login) VALUES (?, ?)")) {
      c.setAutoCommit(false);
      for (int i = 0; i < emailsAndLogins.length; i += 2) {
        s.setString(1, emailsAndLogins[i]);
        s.setString(2, emailsAndLogins[i + 1]);
        s.executeUpdate();
      }
      c.commit();
    }
  }

  /** The tokens of these logins are dead letters whose error says why, and nothing else is. */
  static void assertDeadLettered(MailroomDb db, String... logins) throws Exception {
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isEqualTo(logins.length);
    for (String login : logins) {
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.mailroom_dlq d"
                      + " JOIN tokens t ON d.event_id = 'token-' || t.id"
                      + " JOIN accounts a ON a.id = t.account"
                      + " WHERE a.login = ? AND d.error LIKE 'invalid address: %'",
                  login))
          .as("the dead letter of " + login)
          .isEqualTo(1);
    }
  }
}
