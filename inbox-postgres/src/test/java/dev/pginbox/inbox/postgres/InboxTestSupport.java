package dev.pginbox.inbox.postgres;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;

/** One fresh database with the SQL API installed per test class. */
abstract class InboxTestSupport {

  static TestDatabase database;
  static Jdbi jdbi;
  static PostgresInboxManager manager;

  @BeforeAll
  static void installInbox() {
    database = TestPostgres.shared().newDatabase("inbox_core");
    manager = PostgresInboxManager.create(database.dataSource());
    manager.install();
    jdbi = manager.jdbi();
  }

  /** Runs SQL in its own transaction (test set-up that the API deliberately does not offer). */
  static void sql(String statement, Object... args) {
    jdbi.useHandle(h -> h.execute(statement, args));
  }

  static long count(String query, Object... args) {
    return jdbi.withHandle(h -> h.select(query, args).mapTo(Long.class).one());
  }

  static List<String> strings(String query, Object... args) {
    return jdbi.withHandle(h -> h.select(query, args).mapTo(String.class).list());
  }

  /**
   * A REPEATABLE READ transaction that has taken its snapshot, what a report or pg_dump is: while
   * it stays open, vacuum removes nothing that died after it. Close the connection to end it.
   */
  static Connection holdHorizon(String application) throws SQLException {
    Connection c = database.connect();
    try (Statement s = c.createStatement()) {
      s.execute("SET application_name = '" + application + "'");
    }
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class")) {
      rs.next();
    }
    return c;
  }

  /**
   * Has the server send the plan of every statement run through {@code s}, those inside functions
   * included, as a notice (auto_explain); with {@code analyze}, with the rows and loops of every
   * node (no timing).
   */
  static void explainEveryStatement(Statement s, boolean analyze) throws SQLException {
    s.execute("LOAD 'auto_explain'");
    s.execute("SET auto_explain.log_min_duration = 0");
    s.execute("SET auto_explain.log_nested_statements = on");
    s.execute("SET auto_explain.log_level = notice");
    if (analyze) {
      s.execute("SET auto_explain.log_analyze = on");
      s.execute("SET auto_explain.log_timing = off");
    }
  }

  /** The notices {@code s} received: the plans of {@link #explainEveryStatement}. */
  static List<String> notices(Statement s) throws SQLException {
    List<String> notices = new ArrayList<>();
    for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
      notices.add(w.getMessage());
    }
    return notices;
  }
}
