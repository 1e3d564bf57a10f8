package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spring application in a JVM of its own whose only work is an inbox listener ({@code
 * CrashApplication}, no web server): it keeps running while its workers run, and killed with
 * SIGKILL in the middle of a batch, after its listener wrote through JdbcTemplate for some
 * messages, none of those writes stay and every message is waiting again, untouched (no retry
 * counted).
 */
class ProcessCrashTest {

  @TempDir Path dir;

  private static long count(TestDatabase db, String sql) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** An installed database with an empty inbox {@code crash} and the listener's effects table. */
  private static Inbox crashInbox(TestDatabase db) throws Exception {
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource());
    manager.install();
    Inbox inbox = manager.createInbox("crash");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE crash_effects (event_id text PRIMARY KEY)");
    }
    return inbox;
  }

  private static List<NewMessage> messages(int n) {
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      messages.add(NewMessage.of("crash-" + i, "t", "A-" + i, "{}"));
    }
    return messages;
  }

  /** Starts {@code CrashApplication} on {@code db} and waits until it is ready. */
  private Process startApplication(TestDatabase db) throws Exception {
    Path ready = dir.resolve("ready");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Dcrash.marker=" + dir.resolve("mid-batch"));
    command.add("-Dcrash.ready=" + ready);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.pginbox.inbox.crashtest.CrashApplication");
    command.add("--spring.datasource.url=" + db.jdbcUrl());
    command.add("--spring.datasource.username=" + (db.user() == null ? "" : db.user()));
    command.add("--spring.datasource.password=" + (db.password() == null ? "" : db.password()));
    command.add("--spring.main.web-application-type=none");
    command.add(
        "--spring.autoconfigure.exclude="
            + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
            + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration");
    command.add("--inbox.inboxes.crash.worker.batch-size=10");
    File log = dir.resolve("crash-app.log").toFile();
    Process app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(ready) || !app.isAlive());
    assertThat(app.isAlive()).as("the application died on start-up: %s", tail(log)).isTrue();
    return app;
  }

  private static String tail(File log) throws Exception {
    List<String> lines = Files.readAllLines(log.toPath());
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  @Test
  void an_application_whose_only_work_is_a_listener_runs_until_it_is_stopped() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("spring_keepalive");
    Inbox inbox = crashInbox(db);
    Process app = startApplication(db);
    try {
      // The worker threads are daemon threads: without a thread that keeps the JVM alive, the
      // application exits as soon as its main method returns, before any message arrives.
      inbox.sendAll(messages(1));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  !app.isAlive()
                      || count(
                              db, "SELECT count(*) FROM inbox.crash WHERE processed_at IS NOT NULL")
                          == 1);
      assertThat(app.isAlive())
          .as(
              "the application exited while its worker should run: %s",
              tail(dir.resolve("crash-app.log").toFile()))
          .isTrue();

      app.destroy(); // SIGTERM: the context closes, the workers stop, the JVM exits
      assertThat(app.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
    } finally {
      app.destroyForcibly();
    }
  }

  @Test
  void a_process_killed_mid_batch_leaves_nothing_half_done() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("spring_crash");
    Inbox inbox = crashInbox(db);
    Process app = startApplication(db);
    try {
      inbox.sendAll(messages(5));
      Path marker = dir.resolve("mid-batch");
      await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(marker) || !app.isAlive());
      assertThat(app.isAlive())
          .as(
              "the application died before the batch: %s",
              tail(dir.resolve("crash-app.log").toFile()))
          .isTrue();

      app.destroyForcibly(); // SIGKILL: no shutdown hook, no rollback by the application
      app.waitFor();
    } finally {
      app.destroyForcibly();
    }

    // The server rolls the killed client's transaction back once it sees the socket close.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                count(
                        db,
                        "SELECT count(*) FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND pid <> pg_backend_pid()")
                    == 0);
    assertThat(count(db, "SELECT count(*) FROM crash_effects")).isZero();
    assertThat(
            count(
                db,
                "SELECT count(*) FROM inbox.crash"
                    + " WHERE processed_at IS NULL AND retry_count = 0 AND error IS NULL"))
        .isEqualTo(5);
  }
}
