package dev.mailroom.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.testkit.MailroomDb;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The application that signs users up needs privileges on its own tables only (the grants of
 * docs/security.md): the enqueue trigger still puts every token into the inbox, which the
 * application can neither read nor write itself.
 */
class ApplicationRoleTest {

  static MailroomDb db;
  static PGSimpleDataSource app;

  @BeforeAll
  static void setUp() throws SQLException {
    db = MailroomDb.create("mailroom_app_role");
    String role = "app_" + db.db.name(); // roles belong to the cluster: one per test database
    String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
    db.execute(
        "DROP ROLE IF EXISTS \"" + role + "\"",
        "CREATE ROLE \"" + role + "\" LOGIN PASSWORD '" + password + "'",
        // The grants of docs/security.md, "The mailroom's application role".
        "GRANT USAGE ON SCHEMA public, mailroom TO \"" + role + "\"",
        "GRANT SELECT, INSERT, UPDATE ON public.accounts, public.tokens TO \"" + role + "\"",
        "GRANT USAGE ON SEQUENCE public.accounts_id_seq, public.tokens_id_seq TO \"" + role + "\"");
    app = new PGSimpleDataSource();
    app.setUrl(db.db.jdbcUrl());
    app.setUser(role);
    app.setPassword(password);
  }

  private static long appQuery(String sql) throws SQLException {
    try (Connection c = app.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void sign_up_activation_and_recovery_enqueue_their_tokens_for_an_application_role()
      throws SQLException {
    long id = appQuery("INSERT INTO accounts (email, login) VALUES ('a@x.test', 'a') RETURNING id");
    assertThat(
            db.count(
                "SELECT count(*) FROM inbox.mailroom WHERE aggregate_id = '"
                    + id
                    + "' AND event_type = 'activation'"))
        .isEqualTo(1);

    appQuery(
        "WITH t AS (UPDATE tokens SET consumed_at = extract(epoch FROM now()) WHERE account = "
            + id
            + " AND action = 'activation' RETURNING 1) SELECT count(*) FROM t");
    assertThat(
            db.count("SELECT count(*) FROM accounts WHERE id = " + id + " AND status = 'active'"))
        .isEqualTo(1);
    assertThat(appQuery("SELECT mailroom.request_password_recovery('a')")).isPositive();
    assertThat(
            db.count(
                "SELECT count(*) FROM inbox.mailroom WHERE aggregate_id = '"
                    + id
                    + "' AND event_type = 'password_recovery'"))
        .isEqualTo(1);
  }

  @Test
  void the_application_role_has_no_privilege_on_the_inbox_itself() {
    for (String sql :
        new String[] {
          "SELECT count(*) FROM inbox.mailroom",
          "INSERT INTO inbox.mailroom (event_id) VALUES ('forged') RETURNING 1",
        }) {
      assertThatThrownBy(() -> appQuery(sql))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
    }
  }
}
