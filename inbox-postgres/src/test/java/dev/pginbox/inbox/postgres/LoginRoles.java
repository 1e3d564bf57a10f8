package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Locale;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Login roles for tests of the role model. Roles belong to the whole cluster, so their names carry
 * the test database's name; each gets a random password (works under trust and password
 * authentication alike).
 */
public final class LoginRoles {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final TestDatabase database;

  public LoginRoles(TestDatabase database) {
    this.database = database;
  }

  /** Creates a login role "<suffix>_<database>" that is a member of {@code groups}. */
  public Login create(String suffix, String... groups) throws SQLException {
    String name = (suffix + "_" + database.name()).toLowerCase(Locale.ROOT);
    if (name.length() > 63) {
      name = name.substring(0, 63);
    }
    String password = HexFormat.of().formatHex(RANDOM.generateSeed(16));
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      s.execute("DROP ROLE IF EXISTS \"" + name + "\"");
      s.execute("CREATE ROLE \"" + name + "\" LOGIN PASSWORD '" + password + "'");
      for (String group : groups) {
        s.execute("GRANT \"" + group + "\" TO \"" + name + "\"");
      }
    }
    return new Login(name, password, database);
  }

  /** A login role and the way to connect as it. */
  public record Login(String name, String password, TestDatabase database) {

    public DataSource dataSource() {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(database.jdbcUrl());
      ds.setUser(name);
      ds.setPassword(password);
      return ds;
    }

    /** Runs statements in one connection (autocommit) as this role. */
    public void execute(String... statements) throws SQLException {
      try (Connection c = dataSource().getConnection();
          Statement s = c.createStatement()) {
        for (String statement : statements) {
          s.execute(statement);
        }
      }
    }

    public long count(String query) throws SQLException {
      try (Connection c = dataSource().getConnection();
          Statement s = c.createStatement();
          var rs = s.executeQuery(query)) {
        rs.next();
        return rs.getLong(1);
      }
    }

    /** Asserts that the statements fail for lack of a privilege (SQLSTATE 42501). */
    public void isRefused(String... statements) {
      refused(() -> execute(statements));
    }
  }

  /** Asserts that the call fails with SQLSTATE 42501 (insufficient_privilege) somewhere inside. */
  public static void refused(ThrowingCallable call) {
    assertThatThrownBy(call)
        .satisfies(
            e -> {
              Throwable t = e;
              while (t != null
                  && !(t instanceof SQLException sql && "42501".equals(sql.getSQLState()))) {
                t = t.getCause();
              }
              if (t == null) {
                throw new AssertionError("expected a refusal (SQLSTATE 42501), got " + e, e);
              }
            });
  }
}
