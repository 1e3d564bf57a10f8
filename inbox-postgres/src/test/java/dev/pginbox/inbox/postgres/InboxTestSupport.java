package dev.pginbox.inbox.postgres;

import dev.pginbox.inbox.testing.TestDatabase;
import dev.pginbox.inbox.testing.TestPostgres;
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
}
