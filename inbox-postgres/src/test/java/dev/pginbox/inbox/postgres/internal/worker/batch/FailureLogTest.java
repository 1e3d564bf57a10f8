package dev.pginbox.inbox.postgres.internal.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.Level;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.SubstituteLogger;

/** What the log of failed attempts says, and its budget per minute. */
class FailureLogTest {

  private final Queue<SubstituteLoggingEvent> events = new ConcurrentLinkedQueue<>();
  private final AtomicLong clock = new AtomicLong();
  private final FailureLog log =
      new FailureLog(
          "orders",
          new EventRecordingLogger(new SubstituteLogger("failures", events, false), events),
          clock::get);

  private static InboxMessage message(String id, int failedAttempts) {
    return new InboxMessage(
        id, "t", null, null, "{}", null, null, null, failedAttempts, null, 0, 0, 0);
  }

  private List<SubstituteLoggingEvent> drained() {
    List<SubstituteLoggingEvent> all = List.copyOf(events);
    events.clear();
    return all;
  }

  private void aMinuteLater() {
    clock.addAndGet(TimeUnit.MINUTES.toNanos(1));
  }

  @Test
  void an_error_text_or_an_event_id_with_line_breaks_cannot_add_lines_to_the_log() {
    IllegalStateException forged =
        new IllegalStateException("no stock\n2026-11-29 12:00:00 INFO inbox orders: all good");

    log.threw(message("o-1\r\nINFO fake", 1), forged);
    log.returned(message("o-2", 1), Outcome.retry("later\u001b[2J\nINFO cleared"));

    for (SubstituteLoggingEvent e : drained()) {
      for (Object argument : e.getArgumentArray()) {
        assertThat(String.valueOf(argument)).doesNotContain("\n", "\r", "\u001b");
      }
    }
    log.threw(message("o-3", 1), forged);
    assertThat(drained().get(0).getArgumentArray())
        .contains(
            "java.lang.IllegalStateException: no stock\\n2026-11-29 12:00:00 INFO inbox orders: all good");
  }

  @Test
  void a_first_failure_is_a_warning_with_the_stack_trace_and_a_repeat_one_info_line() {
    IllegalStateException boom = new IllegalStateException("no stock");

    log.threw(message("o-1", 0), boom);
    log.threw(message("o-1", 1), boom);

    List<SubstituteLoggingEvent> logged = drained();
    assertThat(logged).hasSize(2);
    assertThat(logged.get(0).getLevel()).isEqualTo(Level.WARN);
    assertThat(logged.get(0).getThrowable()).isSameAs(boom);
    assertThat(logged.get(0).getArgumentArray()).contains("orders", "o-1", 1);
    assertThat(logged.get(1).getLevel()).isEqualTo(Level.INFO);
    assertThat(logged.get(1).getThrowable()).isNull();
    assertThat(logged.get(1).getArgumentArray())
        .contains("o-1", 2, "java.lang.IllegalStateException: no stock");
  }

  @Test
  void a_returned_failure_is_one_info_line_with_its_reason() {
    log.returned(message("o-2", 0), Outcome.retry("out of stock"));

    SubstituteLoggingEvent logged = drained().get(0);
    assertThat(logged.getLevel()).isEqualTo(Level.INFO);
    assertThat(logged.getThrowable()).isNull();
    assertThat(logged.getArgumentArray()).contains("retry", "o-2", 1, "out of stock");
  }

  @Test
  void stack_traces_beyond_the_budget_of_a_minute_become_one_line_until_the_next_minute() {
    int over = FailureLog.STACK_TRACES_PER_MINUTE + 3;
    for (int i = 0; i < over; i++) {
      log.threw(message("m-" + i, 0), new IllegalStateException("boom " + i));
    }
    List<SubstituteLoggingEvent> logged = drained();

    assertThat(logged).hasSize(over).allMatch(e -> e.getLevel() == Level.WARN);
    assertThat(logged.stream().filter(e -> e.getThrowable() != null))
        .hasSize(FailureLog.STACK_TRACES_PER_MINUTE);
    assertThat(logged.get(over - 1).getThrowable()).isNull();
    assertThat(logged.get(over - 1).getArgumentArray()).contains("m-" + (over - 1));

    aMinuteLater();
    log.threw(message("next", 0), new IllegalStateException("boom"));
    assertThat(drained().get(0).getThrowable()).isNotNull();
  }

  @Test
  void lines_beyond_the_budget_of_a_minute_are_counted_and_the_count_is_logged_the_next_minute() {
    int over = FailureLog.LINES_PER_MINUTE + 25;
    for (int i = 0; i < over; i++) {
      log.threw(message("m-" + i, 2), new IllegalStateException("down"));
    }
    assertThat(drained()).hasSize(FailureLog.LINES_PER_MINUTE);

    aMinuteLater();
    log.returned(message("after", 0), Outcome.retry("still down"));

    List<SubstituteLoggingEvent> logged = drained();
    assertThat(logged).hasSize(2);
    assertThat(logged.get(0).getLevel()).isEqualTo(Level.WARN);
    assertThat(logged.get(0).getArgumentArray()).contains("orders", 25L);
    assertThat(logged.get(1).getArgumentArray()).contains("after");
  }

  @Test
  void an_error_thrown_again_is_still_a_warning() {
    log.threw(message("big", 1), new OutOfMemoryError("Java heap space"));

    SubstituteLoggingEvent logged = drained().get(0);
    assertThat(logged.getLevel()).isEqualTo(Level.WARN);
    assertThat(logged.getThrowable()).isNull();
  }
}
