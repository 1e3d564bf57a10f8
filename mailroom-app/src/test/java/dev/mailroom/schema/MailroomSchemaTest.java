package dev.mailroom.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.testkit.MailroomDb;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The original tutorial's schema walkthrough, plus what the inbox adds. */
class MailroomSchemaTest {

  static MailroomDb db;

  @BeforeAll
  static void setUp() {
    db = MailroomDb.create("mailroom_schema");
  }

  @Test
  void account_insert_creates_an_activation_token_and_one_inbox_message() throws Exception {
    long id = db.signUp("walk1").get(0);
    assertThat(
            db.count(
                "SELECT count(*) FROM tokens WHERE account = "
                    + id
                    + " AND action = 'activation'"
                    + " AND length(secret) = 32 AND code ~ '^[0-9]{5}$' AND consumed_at IS NULL"
                    + " AND expires_at BETWEEN extract(epoch FROM now()) + 890 AND extract(epoch FROM now()) + 910"))
        .isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM accounts WHERE id = " + id + " AND status = 'provisioned'"))
        .isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM inbox.mailroom m JOIN tokens t ON m.event_id = 'token-' || t.id"
                    + " WHERE t.account = "
                    + id
                    + " AND m.event_type = 'activation' AND m.aggregate_id = '"
                    + id
                    + "'"
                    + " AND (m.payload ->> 'token_id')::bigint = t.id AND m.priority = 2"))
        .isEqualTo(1);
  }

  @Test
  void an_idempotent_sign_up_of_an_existing_account_adds_nothing_and_fails_nothing()
      throws Exception {
    long id = db.signUp("again").get(0);
    long messages = db.count("SELECT count(*) FROM inbox.mailroom");
    db.execute(
        "INSERT INTO accounts (email, login) VALUES ('again@x.test', 'again') ON CONFLICT DO NOTHING",
        "INSERT INTO accounts (email, login) VALUES ('again@x.test', 'again')"
            + " ON CONFLICT (email) DO UPDATE SET login = EXCLUDED.login");
    assertThat(db.count("SELECT count(*) FROM accounts WHERE email = 'again@x.test'")).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM tokens WHERE account = " + id)).isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom")).isEqualTo(messages);

    // The same statement for a new account signs it up as usual.
    db.execute(
        "INSERT INTO accounts (email, login) VALUES ('fresh@x.test', 'fresh') ON CONFLICT DO NOTHING");
    assertThat(
            db.count(
                "SELECT count(*) FROM tokens t JOIN accounts a ON a.id = t.account"
                    + " WHERE a.login = 'fresh' AND t.action = 'activation'"))
        .isEqualTo(1);
  }

  @Test
  void an_account_is_never_inserted_when_its_activation_token_cannot_be() throws Exception {
    try (Connection c = db.db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("ALTER TABLE tokens ADD CONSTRAINT no_new_tokens CHECK (false) NOT VALID");
      s.execute("SAVEPOINT before_sign_up");
      assertThatThrownBy(
              () -> s.execute("INSERT INTO accounts (email, login) VALUES ('nt@x.test', 'nt')"))
          .hasMessageContaining("no_new_tokens");
      s.execute("ROLLBACK TO SAVEPOINT before_sign_up");
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM accounts WHERE login = 'nt'")) {
        rs.next();
        assertThat(rs.getLong(1)).isZero();
      }
      c.rollback();
    }
    assertThat(
            db.count(
                "SELECT count(*) FROM accounts a WHERE a.status = 'provisioned' AND NOT EXISTS"
                    + " (SELECT 1 FROM tokens t WHERE t.account = a.id AND t.action = 'activation')"))
        .isZero();
  }

  @Test
  void consume_suspend_unsuspend_walkthrough() throws Exception {
    long id = db.signUp("walk2").get(0);
    db.execute(
        "UPDATE tokens SET consumed_at = extract(epoch FROM now()) WHERE account = "
            + id
            + " AND action = 'activation'");
    assertThat(
            db.count(
                "SELECT count(*) FROM accounts WHERE id = "
                    + id
                    + " AND status = 'active' AND activated_at IS NOT NULL AND status_changed_at = activated_at"))
        .isEqualTo(1);
    db.execute("UPDATE accounts SET status = 'suspended' WHERE id = " + id);
    assertThat(
            db.count(
                "SELECT count(*) FROM accounts WHERE id = "
                    + id
                    + " AND status = 'suspended' AND suspended_at IS NOT NULL AND unsuspended_at IS NULL"))
        .isEqualTo(1);
    db.execute("UPDATE accounts SET status = 'active' WHERE id = " + id);
    assertThat(
            db.count(
                "SELECT count(*) FROM accounts WHERE id = "
                    + id
                    + " AND status = 'active' AND unsuspended_at IS NOT NULL AND suspended_at IS NULL"))
        .isEqualTo(1);
  }

  @Test
  void unsuspending_a_never_activated_account_returns_it_to_provisioned() throws Exception {
    long id = db.signUp("walk3").get(0);
    db.execute(
        "UPDATE accounts SET status = 'suspended' WHERE id = " + id,
        "UPDATE accounts SET status = 'active' WHERE id = " + id);
    assertThat(
            db.count(
                "SELECT count(*) FROM accounts WHERE id = "
                    + id
                    + " AND status = 'provisioned' AND unsuspended_at IS NOT NULL AND activated_at IS NULL"))
        .isEqualTo(1);
  }

  @Test
  void token_insert_notifies_the_original_channel() throws Exception {
    try (Connection listener = db.db.connect();
        Statement s = listener.createStatement()) {
      s.execute("LISTEN token_insert");
      db.signUp("walk4");
      PGNotification[] notes = listener.unwrap(PGConnection.class).getNotifications(10_000);
      assertThat(notes).isNotNull();
      assertThat(notes).extracting(PGNotification::getName).contains("token_insert");
    }
  }

  @Test
  void three_accounts_in_one_transaction_enqueue_three_messages() throws Exception {
    long before = db.count("SELECT count(*) FROM inbox.mailroom");
    db.execute(
        "BEGIN",
        "INSERT INTO accounts (email, login) VALUES ('t1@x.test', 't1')",
        "INSERT INTO accounts (email, login) VALUES ('t2@x.test', 't2'), ('t3@x.test', 't3')",
        "COMMIT");
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom") - before).isEqualTo(3);
  }

  @Test
  void rolled_back_sign_up_enqueues_nothing() throws Exception {
    long before = db.count("SELECT count(*) FROM inbox.mailroom");
    db.execute(
        "BEGIN", "INSERT INTO accounts (email, login) VALUES ('rb@x.test', 'rb')", "ROLLBACK");
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom")).isEqualTo(before);
  }

  @Test
  void code_default_is_always_five_digits_from_a_cryptographic_generator() throws Exception {
    // The original printed '#####' for random() >= 0.999995. The default maps 48 random bits to
    // 0..99999: every extreme gives 5 digits.
    assertThat(
            db.count(
                "SELECT count(*) FROM (SELECT lpad(((('x' || encode(b, 'hex'))::bit(48)::bigint"
                    + " % 100000))::text, 5, '0') AS c FROM (VALUES ('\\x000000000000'::bytea),"
                    + " ('\\xffffffffffff'), ('\\x0000000186a0'), ('\\x00000001869f')) v(b)) x"
                    + " WHERE c !~ '^[0-9]{5}$'"))
        .isZero();
    try (Connection c = db.db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef d JOIN pg_attribute a"
                    + " ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = 'tokens'::regclass AND a.attname = 'code'")) {
      rs.next();
      assertThat(rs.getString(1))
          .contains("gen_random_bytes(6)")
          .contains("bit(48)")
          .doesNotContain("random()")
          .doesNotContain("FM00000");
    }
  }

  @Test
  void password_recovery_request() throws Exception {
    long id = db.signUp("rec1").get(0);
    try (Connection c = db.db.connect();
        Statement s = c.createStatement()) {
      assertThat(value(s, "SELECT mailroom.request_password_recovery('rec1')"))
          .isNull(); // provisioned
      s.execute("UPDATE tokens SET consumed_at = 1 WHERE account = " + id);
      Long token = value(s, "SELECT mailroom.request_password_recovery('rec1@x.test')");
      assertThat(token).isNotNull();
      assertThat(value(s, "SELECT mailroom.request_password_recovery('rec1')"))
          .isNull(); // within a minute
      assertThat(value(s, "SELECT mailroom.request_password_recovery('nobody')")).isNull();
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.mailroom WHERE event_id = 'token-"
                      + token
                      + "' AND event_type = 'password_recovery' AND priority = 1"))
          .isEqualTo(1);
    }
  }

  @Test
  void install_is_rerunnable_and_keeps_messages() throws Exception {
    db.signUp("rerun1");
    long messages = db.count("SELECT count(*) FROM inbox.mailroom");
    SchemaInstaller.install(db.dataSource, "mailroom", "token_insert");
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom")).isEqualTo(messages);
    db.signUp("rerun2");
    assertThat(db.count("SELECT count(*) FROM inbox.mailroom")).isEqualTo(messages + 1);
  }

  @Test
  void migrating_from_the_jobs_cursor_enqueues_what_the_old_collector_had_not_sent()
      throws Exception {
    MailroomDb old = MailroomDb.create("mailroom_migrate");
    // Simulate the original: tokens 1..3 exist, the cursor says 1 was sent; the inbox knows
    // nothing.
    old.signUp("m1", "m2", "m3");
    old.execute(
        "DELETE FROM inbox.mailroom",
        "CREATE TYPE job_type AS ENUM ('mailroom')",
        "CREATE TABLE jobs (job_type job_type PRIMARY KEY, last_seq BIGINT)",
        "INSERT INTO jobs VALUES ('mailroom', (SELECT min(id) FROM tokens))");
    SchemaInstaller.install(old.dataSource, "mailroom", "token_insert");
    assertThat(old.count("SELECT count(*) FROM inbox.mailroom")).isEqualTo(2);
    assertThat(old.count("SELECT last_seq FROM jobs"))
        .isEqualTo(old.count("SELECT max(id) FROM tokens"));
    SchemaInstaller.install(old.dataSource, "mailroom", "token_insert");
    assertThat(old.count("SELECT count(*) FROM inbox.mailroom")).isEqualTo(2);
  }

  private static Long value(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      long v = rs.getLong(1);
      return rs.wasNull() ? null : v;
    }
  }
}
