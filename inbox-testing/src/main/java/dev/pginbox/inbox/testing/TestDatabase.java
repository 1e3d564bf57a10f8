package dev.pginbox.inbox.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** One isolated database on the shared test server. */
public record TestDatabase(String jdbcUrl, String user, String password, String name) {

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
