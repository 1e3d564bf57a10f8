package dev.pginbox.inbox.postgres.internal.worker.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void doubles_up_to_the_cap_and_starts_over_after_a_reset() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(700));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(200));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(400));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(700));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(700));
    backoff.reset();
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
  }
}
