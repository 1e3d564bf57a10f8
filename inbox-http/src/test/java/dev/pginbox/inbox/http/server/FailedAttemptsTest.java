package dev.pginbox.inbox.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailedAttemptsTest {

  private long now;

  @Test
  void failed_attempts_are_limited_per_key_in_a_window_and_memory_is_bounded() {
    FailedAttempts attempts = new FailedAttempts(3, Duration.ofNanos(1_000), 2, () -> now);
    assertThat(attempts.blocked("a")).isFalse();
    attempts.failed("a");
    attempts.failed("a");
    assertThat(attempts.blocked("a")).isFalse();
    attempts.failed("a");
    assertThat(attempts.blocked("a")).isTrue();
    assertThat(attempts.blocked("b")).isFalse();
    now += 1_000;
    assertThat(attempts.blocked("a")).as("a new window").isFalse();
    // Bounded: a third key evicts the oldest.
    attempts.failed("b");
    attempts.failed("c");
    attempts.failed("d");
    assertThat(attempts.tracked()).isLessThanOrEqualTo(2);
  }
}
