package dev.mailroom.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The real entry point as a separate JVM, for what only a process shows: exit codes, SIGTERM, a
 * stdout whose reader went away. Kept to a few runs (each starts a JVM).
 */
class MainProcessTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private static Process start(MailroomDb db, String... args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new java.util.ArrayList<>(
            List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("MAILROOM_"));
    env.putAll(RunningCollector.env(db, "MAILROOM_BATCH_TIMEOUT", "100"));
    return pb.start();
  }

  /** Copies a process stream into a buffer on a thread; {@link #done} waits for its end. */
  private static final class Drain extends ByteArrayOutputStream {
    private final Thread thread;

    Drain(InputStream in) {
      thread =
          new Thread(
              () -> {
                try {
                  in.transferTo(this);
                } catch (IOException e) {
                  // process gone
                }
              });
      thread.setDaemon(true);
      thread.start();
    }

    String text() {
      return toString(StandardCharsets.UTF_8);
    }

    String done() throws InterruptedException {
      thread.join(TimeUnit.SECONDS.toMillis(30));
      return text();
    }
  }

  @Test
  void sigterm_finishes_and_exits_zero() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_sigterm");
    Process p = start(db);
    Drain out = new Drain(p.getInputStream());
    Drain err = new Drain(p.getErrorStream());
    try {
      await().atMost(WAIT).until(() -> err.text().contains("[PG] connected"));
      db.signUp("s1", "s2");
      await()
          .atMost(WAIT)
          .until(() -> out.text().lines().mapToInt(l -> SenderProtocol.check(l).size()).sum() == 2);
      // Not p.destroy(): it also closes our ends of the pipes, losing the last log lines.
      assertThat(new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).start().waitFor())
          .isZero();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String log = err.done();
      assertThat(p.exitValue()).as(log).isZero();
      assertThat(log).contains("[PG] signal 15 received. exiting...");
      assertThat(db.pending()).isZero();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void a_collector_killed_while_blocked_on_a_full_pipe_leaves_only_whole_lines() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_kill9");
    Process p = start(db);
    Drain err = new Drain(p.getErrorStream());
    try {
      await().atMost(WAIT).until(() -> err.text().contains("[PG] connected"));
      // Records of about 500 bytes (ten per line made lines of about 5 KB), far more than the
      // pipe holds (64 KB): with nobody reading, the collector blocks in a write to stdout.
      // (An email's local part is at most 64 characters, its domain's labels 63 each.)
      try (Connection c = db.db.connect();
          PreparedStatement s =
              c.prepareStatement("INSERT INTO accounts (email, login) VALUES (?, ?)")) {
        for (int i = 0; i < 400; i++) {
          String n = String.format("%04d", i);
          s.setString(
              1, n + "k".repeat(60) + "@" + "d".repeat(63) + "." + "e".repeat(63) + ".test");
          s.setString(2, n + "k".repeat(230));
          s.executeUpdate();
        }
      }
      await().atMost(WAIT).until(() -> blockedWritingToAPipe(p.pid()));
      assertThat(new ProcessBuilder("kill", "-KILL", String.valueOf(p.pid())).start().waitFor())
          .isZero();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(out).isNotEmpty();
      assertThat(out).as("the last line is whole").endsWith("\n");
      assertThat(SenderProtocol.checkOutput(out)).isNotEmpty(); // every line parses
    } finally {
      p.destroyForcibly();
    }
  }

  /** Whether a thread of the process sleeps in the kernel's pipe write (Linux /proc). */
  private static boolean blockedWritingToAPipe(long pid) throws IOException {
    try (var tasks = java.nio.file.Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          if (java.nio.file.Files.readString(task.resolve("wchan")).contains("pipe_write")) {
            return true;
          }
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    }
    return false;
  }

  @Test
  void closed_stdout_exits_non_zero_with_nothing_processed() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_epipe");
    Process p = start(db);
    Drain err = new Drain(p.getErrorStream());
    try {
      p.getInputStream().close(); // the sender is gone: writes fail with EPIPE
      await().atMost(WAIT).until(() -> err.text().contains("[PG] connected"));
      db.signUp("e1", "e2", "e3");
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String log = err.done();
      assertThat(p.exitValue()).as(log).isEqualTo(1);
      assertThat(log).contains("ERROR: cannot write to stdout");
      assertThat(db.pending()).isEqualTo(3);
    } finally {
      p.destroyForcibly();
    }
  }
}
