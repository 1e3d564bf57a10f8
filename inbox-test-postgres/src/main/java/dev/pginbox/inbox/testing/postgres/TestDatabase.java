package dev.pginbox.inbox.testing.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** One isolated database on the shared test server. */
public record TestDatabase(String jdbcUrl, String user, String password, String name) {

  private static final Pattern HOST_PORT = Pattern.compile("^jdbc:postgresql://[^/:,]+:(\\d+)/");

  /** The server's port, from a URL of the form {@code jdbc:postgresql://host:port/...}. */
  public int port() {
    return Integer.parseInt(hostPort().group(1));
  }

  /** The same database through another port of the same host (a proxy in front of the server). */
  public TestDatabase withPort(int port) {
    Matcher m = hostPort();
    return new TestDatabase(
        jdbcUrl.substring(0, m.start(1)) + port + jdbcUrl.substring(m.end(1)),
        user,
        password,
        name);
  }

  private Matcher hostPort() {
    Matcher m = HOST_PORT.matcher(jdbcUrl);
    if (!m.find()) {
      throw new IllegalStateException("not a single host:port JDBC URL: " + jdbcUrl);
    }
    return m;
  }

  /** A connection factory for the database; every call opens a new physical connection. */
  public DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl);
    if (user != null) {
      ds.setUser(user);
    }
    if (password != null) {
      ds.setPassword(password);
    }
    return ds;
  }

  public Connection connect() throws SQLException {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    return DriverManager.getConnection(jdbcUrl, p);
  }
}
