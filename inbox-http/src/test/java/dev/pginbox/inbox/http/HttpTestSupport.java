package dev.pginbox.inbox.http;

import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.net.InetSocketAddress;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/** A database with the SQL API per test class; servers bind to loopback on a free port. */
abstract class HttpTestSupport {

  static final String USER = "operator";
  static final String PASSWORD = "correct-horse-battery";

  static TestDatabase database;
  static PostgresInboxManager manager;
  static Jdbi jdbi;

  static void installDatabase(String name) {
    database = TestPostgres.shared().newDatabase(name);
    manager = PostgresInboxManager.create(database.dataSource());
    manager.install();
    jdbi = manager.jdbi();
  }

  static Credentials operatorCredentials() {
    return new Credentials(Map.of(USER, PASSWORD), null, null);
  }

  static InetSocketAddress loopback() {
    return new InetSocketAddress("127.0.0.1", 0);
  }

  static void sql(String statement) {
    jdbi.useHandle(h -> h.execute(statement));
  }

  static long count(String query) {
    return jdbi.withHandle(h -> h.select(query).mapTo(Long.class).one());
  }
}
