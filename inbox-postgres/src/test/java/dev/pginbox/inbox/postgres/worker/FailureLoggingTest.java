package dev.pginbox.inbox.postgres.worker;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * A real worker whose handler throws: what its failed attempts log and store. This module's tests
 * log through slf4j-simple, which writes to whatever {@code System.err} is at each call.
 */
class FailureLoggingTest extends WorkerTestSupport {

  /** One log record: its level, its first line, and the lines after it (a stack trace). */
  record LogRecord(String level, String line, List<String> more) {}

  @Test
  void a_first_failure_logs_its_stack_trace_a_repeat_one_line_and_the_error_keeps_the_top_frames()
      throws Exception {
    String inbox = newInbox("logged", 3);
    String logger = "dev.pginbox.inbox.failures." + inbox;
    // simplelogger.properties keeps dev.pginbox.inbox.failures quiet in the other tests.
    System.setProperty("org.slf4j.simpleLogger.log." + logger, "info");
    InboxWorker worker =
        PostgresInboxWorker.builder(dataSource(), options(inbox, false).build())
            .handler(
                (m, tx) -> {
                  throw new IllegalStateException("cannot digest " + m.eventId());
                })
            .build(); // never started: runOnce drives it in this thread
    insert(inbox, "m", 0, 1, 1);

    List<LogRecord> logged;
    try (StderrCapture stderr = new StderrCapture()) {
      assertThat(worker.runOnce()).isEqualTo(1);
      execute("UPDATE inbox." + inbox + " SET next_attempt_at = now() - interval '1 second'");
      assertThat(worker.runOnce()).isEqualTo(1);
      logged = stderr.records(logger);
    }

    assertThat(logged).hasSize(2);
    LogRecord first = logged.get(0);
    assertThat(first.level()).isEqualTo("WARN");
    assertThat(first.line()).contains("the handler failed on message m-0 (attempt 1)");
    assertThat(first.more())
        .first()
        .isEqualTo("java.lang.IllegalStateException: cannot digest m-0");
    assertThat(first.more()).anyMatch(l -> l.startsWith("\tat " + getClass().getName()));
    LogRecord second = logged.get(1);
    assertThat(second.level()).isEqualTo("INFO");
    assertThat(second.line())
        .contains(
            "message m-0 again (attempt 2): java.lang.IllegalStateException: cannot digest m-0");
    assertThat(second.more()).isEmpty();

    String error;
    try (Handle h = JDBI.open()) {
      error =
          h.createQuery("SELECT error FROM inbox." + inbox + " WHERE event_id = 'm-0'")
              .mapTo(String.class)
              .one();
    }
    assertThat(error)
        .startsWith(
            "java.lang.IllegalStateException: cannot digest m-0\n\tat " + getClass().getName());
  }

  /** Copies what {@code System.err} receives, and passes it on, until closed. */
  private static final class StderrCapture implements AutoCloseable {
    private static final Pattern RECORD_START =
        Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[");

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    StderrCapture() {
      OutputStream both =
          new OutputStream() {
            @Override
            public void write(int b) {
              copy.write(b);
              original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
              copy.write(b, off, len);
              original.write(b, off, len);
            }
          };
      System.setErr(new PrintStream(both, true, UTF_8));
    }

    /** The records of {@code logger} ({@code TIME [THREAD] LEVEL LOGGER - MESSAGE}). */
    List<LogRecord> records(String logger) {
      List<LogRecord> records = new ArrayList<>();
      String level = null;
      String line = null;
      List<String> more = new ArrayList<>();
      for (String l : copy.toString(UTF_8).split("\n")) {
        if (RECORD_START.matcher(l).find()) {
          if (line != null) {
            records.add(new LogRecord(level, line, List.copyOf(more)));
          }
          int at = l.indexOf(" " + logger + " - ");
          line = at < 0 ? null : l;
          level = at < 0 ? null : l.substring(l.lastIndexOf(' ', at - 1) + 1, at);
          more.clear();
        } else if (line != null) {
          more.add(l);
        }
      }
      if (line != null) {
        records.add(new LogRecord(level, line, List.copyOf(more)));
      }
      return records;
    }

    @Override
    public void close() {
      System.setErr(original);
    }
  }
}
