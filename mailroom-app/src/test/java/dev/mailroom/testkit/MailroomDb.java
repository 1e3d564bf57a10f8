package dev.mailroom.testkit;

import dev.mailroom.config.MailroomConfig;
import dev.mailroom.schema.SchemaInstaller;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** A fresh database with the inbox API and the mailroom schema installed, plus small helpers. */
public final class MailroomDb {

  public final TestDatabase db;
  public final DataSource dataSource;

  private MailroomDb(TestDatabase db) {
    this.db = db;
    this.dataSource = db.dataSource();
  }

  public static MailroomDb wrap(TestDatabase db) {
    return new MailroomDb(db);
  }

  public static MailroomDb create(String prefix) {
    MailroomDb m = new MailroomDb(TestPostgres.shared().newDatabase(prefix));
    SchemaInstaller.install(
        m.dataSource, MailroomConfig.DEFAULT_QUEUE, MailroomConfig.DEFAULT_CHANNEL);
    return m;
  }

  /** MAILROOM_DATABASE_URL for this database, as a JDBC URL with the credentials in it. */
  public String url() {
    String sep = db.jdbcUrl().contains("?") ? "&" : "?";
    String url = db.jdbcUrl();
    if (db.user() != null && !url.contains("user=")) {
      url += sep + "user=" + db.user();
      sep = "&";
    }
    if (db.password() != null && !url.contains("password=")) {
      url += sep + "password=" + db.password();
    }
    return url;
  }

  public void execute(String... statements) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  /**
   * Drops the schema's checks on {@code accounts.email} and {@code accounts.login}, so a test can
   * insert what a database upgraded from the original may still hold: rows that predate them.
   */
  public void allowLegacyAccounts() throws SQLException {
    execute(
        "ALTER TABLE public.accounts DROP CONSTRAINT IF EXISTS accounts_email_one_bare_address,"
            + " DROP CONSTRAINT IF EXISTS accounts_login_no_control_characters");
  }

  /** Inserts accounts (each its own transaction) and returns their ids. */
  public List<Long> signUp(String... logins) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement("INSERT INTO accounts (email, login) VALUES (?, ?) RETURNING id")) {
      for (String login : logins) {
        s.setString(1, login + "@x.test");
        s.setString(2, login);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          ids.add(rs.getLong(1));
        }
      }
    }
    return ids;
  }

  /** The single number {@code sql} selects, its {@code ?} bound to {@code args} in order. */
  public long count(String sql, Object... args) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        s.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  public byte[] secretOf(String login) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT t.secret FROM tokens t JOIN accounts a ON a.id = t.account WHERE a.login = ? ORDER BY t.id DESC LIMIT 1")) {
      s.setString(1, login);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getBytes(1);
      }
    }
  }

  public long pending() throws SQLException {
    return count("SELECT count(*) FROM inbox.mailroom WHERE processed_at IS NULL");
  }
}
