package dev.pginbox.inbox.testing.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * One real PostgreSQL server per JVM, for tests and benchmarks, chosen in this order:
 *
 * <ol>
 *   <li>the JDBC URL in {@value #URL_VARIABLE} (user and password from {@value #USER_VARIABLE} and
 *       {@value #PASSWORD_VARIABLE}, or inside the URL); the user needs {@code CREATEDB};
 *   <li>Testcontainers ({@code postgres:18}) when a Docker engine is reachable (asked only where
 *       one is configured, see {@link DockerProbe});
 *   <li>an embedded PostgreSQL 18 started from the {@code io.zonky.test} Maven artifacts.
 * </ol>
 *
 * Every caller gets its own freshly created database ({@link #newDatabase(String)}), so test
 * classes never see each other's inboxes.
 */
public final class TestPostgres {

  public static final String URL_VARIABLE = "INBOX_TEST_DATABASE_URL";
  public static final String USER_VARIABLE = "INBOX_TEST_DATABASE_USER";
  public static final String PASSWORD_VARIABLE = "INBOX_TEST_DATABASE_PASSWORD";

  /** Set to {@code false} to skip the Testcontainers probe even where Docker answers. */
  public static final String TESTCONTAINERS_VARIABLE = "INBOX_TEST_TESTCONTAINERS";

  /**
   * System property: {@code true} starts the embedded server with durable commits and 1 GB of
   * shared buffers (benchmarks); by default tests trade durability for speed (fsync and
   * synchronous_commit off), which changes no behaviour a test can observe.
   */
  public static final String DURABLE_PROPERTY = "inbox.test.durable";

  private static final Logger LOG = LoggerFactory.getLogger(TestPostgres.class);
  private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();
  private static volatile TestPostgres shared;

  private final String adminUrl;
  private final String user;
  private final String password;
  private final String kind;
  private final AutoCloseable server;

  private TestPostgres(
      String adminUrl, String user, String password, String kind, AutoCloseable server) {
    this.adminUrl = adminUrl;
    this.user = user;
    this.password = password;
    this.kind = kind;
    this.server = server;
  }

  /** The server of this JVM, started on first use and stopped at JVM exit. */
  public static TestPostgres shared() {
    TestPostgres current = shared;
    if (current == null) {
      synchronized (TestPostgres.class) {
        current = shared;
        if (current == null) {
          current = start();
          shared = current;
          TestPostgres started = current;
          Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "test-postgres-stop"));
        }
      }
    }
    return current;
  }

  /** Where the server came from: {@code url}, {@code testcontainers} or {@code embedded}. */
  public String kind() {
    return kind;
  }

  /**
   * Creates an empty database with a unique name derived from {@code prefix}. The name carries the
   * pid, but pids are reused (pid_max is often 32768) and databases on a long-lived server given by
   * {@value #URL_VARIABLE} are never dropped: a name taken by an earlier JVM is skipped.
   */
  public TestDatabase newDatabase(String prefix) {
    for (int attempt = 0; ; attempt++) {
      String name =
          (prefix.replaceAll("[^A-Za-z0-9]", "_")
                  + "_"
                  + ProcessHandle.current().pid()
                  + "_"
                  + DATABASE_COUNTER.incrementAndGet())
              .toLowerCase(Locale.ROOT);
      if (name.length() > 60) {
        name = name.substring(name.length() - 60);
      }
      try (Connection c = DriverManager.getConnection(adminUrl, properties());
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE \"" + name + "\"");
        return new TestDatabase(withDatabase(adminUrl, name), user, password, name);
      } catch (SQLException e) {
        if (!"42P04".equals(e.getSQLState()) || attempt >= 1000) { // 42P04: duplicate_database
          throw new IllegalStateException(
              "cannot create test database " + name + " on " + adminUrl, e);
        }
      }
    }
  }

  private Properties properties() {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    return p;
  }

  static String withDatabase(String jdbcUrl, String database) {
    int query = jdbcUrl.indexOf('?');
    String base = query < 0 ? jdbcUrl : jdbcUrl.substring(0, query);
    String params = query < 0 ? "" : jdbcUrl.substring(query);
    int slash = base.indexOf('/', "jdbc:postgresql://".length());
    String hostPart = slash < 0 ? base : base.substring(0, slash);
    return hostPart + "/" + database + params;
  }

  private static TestPostgres start() {
    String url = System.getenv(URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      LOG.info(
          "tests use the PostgreSQL at {} ({})",
          url.replaceAll("password=[^&]*", "password=***"),
          URL_VARIABLE);
      return new TestPostgres(
          url, System.getenv(USER_VARIABLE), System.getenv(PASSWORD_VARIABLE), "url", () -> {});
    }
    if (!"false".equalsIgnoreCase(System.getenv(TESTCONTAINERS_VARIABLE)) && dockerAvailable()) {
      PostgreSQLContainer<?> container = new PostgreSQLContainer<>("postgres:18");
      container.start();
      LOG.info("tests use a Testcontainers postgres:18 at {}", container.getJdbcUrl());
      return new TestPostgres(
          container.getJdbcUrl(),
          container.getUsername(),
          container.getPassword(),
          "testcontainers",
          container::stop);
    }
    try {
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder().setServerConfig("max_connections", "300");
      if (Boolean.getBoolean(DURABLE_PROPERTY)) {
        // zonky's defaults turn fsync, synchronous_commit and full_page_writes off: undo all three.
        builder
            .setServerConfig("shared_buffers", "1GB")
            .setServerConfig("fsync", "on")
            .setServerConfig("synchronous_commit", "on")
            .setServerConfig("full_page_writes", "on");
      } else {
        builder
            .setServerConfig("fsync", "off")
            .setServerConfig("synchronous_commit", "off")
            .setServerConfig("full_page_writes", "off");
      }
      EmbeddedPostgres embedded = builder.start();
      String jdbcUrl = embedded.getJdbcUrl("postgres", "postgres");
      LOG.info("tests use an embedded PostgreSQL 18 at {}", jdbcUrl);
      return new TestPostgres(jdbcUrl, "postgres", null, "embedded", embedded);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start an embedded PostgreSQL", e);
    }
  }

  /** Asks Testcontainers only where a Docker may be (see {@link DockerProbe}). */
  static boolean dockerAvailable() {
    if (!DockerProbe.dockerConfigured()) {
      LOG.debug("no Docker configured: Testcontainers is not asked");
      return false;
    }
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private void stop() {
    try {
      server.close();
    } catch (Exception e) {
      LOG.warn("stopping the test PostgreSQL failed", e);
    }
  }
}
