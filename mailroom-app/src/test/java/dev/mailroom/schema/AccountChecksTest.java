package dev.mailroom.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.mailroom.config.MailroomConfig;
import dev.mailroom.testkit.AddressSamples;
import dev.mailroom.testkit.MailroomDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The schema refuses at sign-up what the mailroom would never send: an email that is not one bare
 * address, a login with characters that could rewrite the text of an email. An upgraded database
 * keeps the rows it has.
 */
class AccountChecksTest {

  static final String EMAIL_CHECK = "accounts_email_one_bare_address";
  static final String LOGIN_CHECK = "accounts_login_no_control_characters";

  /** The query of docs/mailroom.md, "Accounts the schema refuses", that lists such rows. */
  static final String LEGACY_ROWS =
      "SELECT id, email, login FROM accounts"
          + " WHERE NOT (length(email) <= 254 AND strpos(email, '@') BETWEEN 2 AND 65"
          + " AND email ~ '^[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+)*"
          + "@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$')"
          + " OR login ~ '[\\u0001-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]'";

  static MailroomDb db;
  static int n;

  @BeforeAll
  static void install() {
    db = MailroomDb.create("mailroom_account_checks");
  }

  @Test
  void sign_up_accepts_exactly_the_addresses_the_collector_sends_to() throws Exception {
    for (String email : AddressSamples.ACCEPTED) {
      assertThat((Throwable) signUp(email, "login" + ++n)).as(email).isNull();
    }
    for (String email : AddressSamples.REFUSED) {
      SQLException refused = signUp(email, "login" + ++n);
      assertThat((Throwable) refused).as(email).isNotNull();
      if (email.length() <= 254) {
        assertThat(refused.getSQLState()).as(email).isEqualTo("23514");
        assertThat(refused.getMessage()).as(email).contains(EMAIL_CHECK);
      }
    }
  }

  @Test
  void sign_up_refuses_a_login_with_line_breaks_or_control_characters() throws Exception {
    for (String login :
        List.of(
            "eve\r\nBcc: spy@evil.test", "a\tb", "a\u0085b", "a\u2028b", "\u202Eevil", "a\u007F")) {
      SQLException refused = signUp("c" + ++n + "@x.test", login);
      assertThat((Throwable) refused).as(login).isNotNull();
      assertThat(refused.getMessage()).as(login).contains(LOGIN_CHECK);
    }
    for (String login : List.of("alice", "<script>alert(1)</script>", "Zoë Ñ", "with space")) {
      assertThat((Throwable) signUp("c" + ++n + "@x.test", login)).as(login).isNull();
    }
  }

  @Test
  void a_fresh_install_has_both_checks_validated() throws Exception {
    assertThat(validated(db, EMAIL_CHECK)).isEqualTo(1);
    assertThat(validated(db, LOGIN_CHECK)).isEqualTo(1);
  }

  @Test
  void an_upgrade_keeps_rows_that_break_the_checks_and_refuses_new_ones() throws Exception {
    MailroomDb old = MailroomDb.create("mailroom_account_checks_upgrade");
    old.allowLegacyAccounts();
    old.execute(
        "INSERT INTO accounts (email, login) VALUES ('\"w2@x.test\" <attacker@evil.test>', 'w2'),"
            + " ('ok@x.test', E'eve\\r\\nBcc: spy@evil.test')");

    SchemaInstaller.install(
        old.dataSource, MailroomConfig.DEFAULT_QUEUE, MailroomConfig.DEFAULT_CHANNEL);
    SchemaInstaller.install(
        old.dataSource, MailroomConfig.DEFAULT_QUEUE, MailroomConfig.DEFAULT_CHANNEL);

    assertThat(old.count("SELECT count(*) FROM accounts")).isEqualTo(2);
    assertThat(validated(old, EMAIL_CHECK)).isZero();
    assertThat(validated(old, LOGIN_CHECK)).isZero();
    SQLException refused =
        catchThrowableOfType(
            () -> old.execute("INSERT INTO accounts (email, login) VALUES ('grp: a@x.test;', 'g')"),
            SQLException.class);
    assertThat(refused.getMessage()).contains(EMAIL_CHECK);
    // docs/mailroom.md's query finds them; once they are fixed, the operator validates the checks.
    assertThat(old.count("SELECT count(*) FROM (" + LEGACY_ROWS + ") legacy")).isEqualTo(2);
    old.execute(
        "UPDATE accounts SET email = 'w2@x.test' WHERE login = 'w2'",
        "UPDATE accounts SET login = 'eve' WHERE email = 'ok@x.test'",
        "ALTER TABLE accounts VALIDATE CONSTRAINT " + EMAIL_CHECK,
        "ALTER TABLE accounts VALIDATE CONSTRAINT " + LOGIN_CHECK);
    assertThat(validated(old, EMAIL_CHECK)).isEqualTo(1);
  }

  /** 1 when the constraint exists and is validated, 0 when it exists NOT VALID, else fails. */
  private static long validated(MailroomDb in, String constraint) throws SQLException {
    return in.count(
        "SELECT convalidated::int FROM pg_constraint"
            + " WHERE conrelid = 'public.accounts'::regclass AND conname = ?",
        constraint);
  }

  /** The error of the sign-up, or null when it went through. */
  private static SQLException signUp(String email, String login) throws SQLException {
    try (Connection c = db.db.connect();
        PreparedStatement s =
            c.prepareStatement("INSERT INTO accounts (email, login) VALUES (?, ?)")) {
      s.setString(1, email);
      s.setString(2, login);
      s.executeUpdate();
      return null;
    } catch (SQLException e) {
      return e;
    }
  }
}
