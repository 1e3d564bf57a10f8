package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.TestDatabase;
import dev.pginbox.inbox.testing.TestPostgres;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spring application killed with SIGKILL in the middle of a batch, after its listener wrote
 * through JdbcTemplate for some messages: none of those writes stay and every message is waiting
 * again, untouched (no retry counted).
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

  @Test
  void a_process_killed_mid_batch_leaves_nothing_half_done() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("spring_crash");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource());
    manager.install();
    List<NewMessage> messages = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      messages.add(NewMessage.of("crash-" + i, "t", "A-" + i, "{}"));
    }
    manager.createInbox("crash").sendAll(messages);
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE crash_effects (event_id text PRIMARY KEY)");
    }
    Path marker = dir.resolve("mid-batch");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Dcrash.marker=" + marker);
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
    try {
      await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(marker) || !app.isAlive());
      assertThat(app.isAlive()).as("the application died before the batch: see %s", log).isTrue();

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
