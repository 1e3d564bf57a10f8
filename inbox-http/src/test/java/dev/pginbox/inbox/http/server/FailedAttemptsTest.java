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

  @Test
  void a_flood_of_new_keys_does_not_unblock_a_blocked_one() {
    FailedAttempts attempts = new FailedAttempts(3, Duration.ofNanos(1_000), 4, () -> now);
    for (int i = 0; i < 3; i++) {
      attempts.failed("attacker");
    }
    for (int i = 0; i < 100; i++) {
      attempts.failed("flood" + i);
    }
    assertThat(attempts.blocked("attacker")).isTrue();
    assertThat(attempts.tracked()).isLessThanOrEqualTo(4);
    now += 1_000;
    assertThat(attempts.blocked("attacker")).as("its window ended").isFalse();
  }

  @Test
  void a_new_key_is_refused_while_every_tracked_key_is_blocked() {
    FailedAttempts attempts = new FailedAttempts(1, Duration.ofNanos(1_000), 2, () -> now);
    attempts.failed("x");
    attempts.failed("y");
    attempts.failed("z");
    assertThat(attempts.blocked("x")).isTrue();
    assertThat(attempts.blocked("y")).isTrue();
    assertThat(attempts.blocked("z")).as("no room to remember it: refused").isTrue();
    assertThat(attempts.tracked()).isEqualTo(2);
    now += 1_000;
    assertThat(attempts.blocked("z")).isFalse();
    attempts.failed("z");
    assertThat(attempts.blocked("z")).isTrue();
    assertThat(attempts.tracked()).isLessThanOrEqualTo(2);
  }
}
