package dev.pginbox.inbox.postgres.internal.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The error text a failed attempt stores for an exception. */
class ErrorTextTest {

  private static IllegalStateException nested(int depth, String message) {
    if (depth == 0) {
      return new IllegalStateException(message);
    }
    return nested(depth - 1, message);
  }

  @Test
  void the_first_line_then_the_top_frames_then_the_causes_with_theirs() {
    IllegalStateException error = nested(20, "no stock for MUG-1");
    error.initCause(new java.sql.SQLException("connection reset"));

    String text = ErrorText.of(error);

    String[] lines = text.split("\n");
    assertThat(lines[0]).isEqualTo("java.lang.IllegalStateException: no stock for MUG-1");
    assertThat(lines[1]).startsWith("\tat " + ErrorTextTest.class.getName() + ".nested(");
    assertThat(text).contains("\tat " + ErrorTextTest.class.getName() + ".nested(");
    assertThat(text.lines().filter(l -> l.startsWith("\tat ")))
        .hasSize(ErrorText.TOP_FRAMES + ErrorText.CAUSE_FRAMES);
    assertThat(text)
        .containsPattern(
            "\n\t\\.\\.\\. \\d+ more\nCaused by: java.sql.SQLException:" + " connection reset\n");
  }

  @Test
  void a_huge_message_is_cut_so_that_the_frames_fit_within_the_cap() {
    String text = ErrorText.of(new IllegalArgumentException("x".repeat(10_000)));

    assertThat(text.length()).isLessThanOrEqualTo(ErrorText.MAX_LENGTH);
    assertThat(text).contains(" [...]\n\tat " + ErrorTextTest.class.getName());
  }

  @Test
  void a_cause_cycle_ends() {
    IllegalStateException a = new IllegalStateException("a");
    IllegalStateException b = new IllegalStateException("b", a);
    a.initCause(b);

    assertThat(ErrorText.of(a).lines().filter(l -> l.startsWith("Caused by"))).hasSize(1);
  }
}
