package dev.pginbox.inbox.postgres.internal.worker;

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

  @Test
  void purge_results_count_deleted_and_stripped_rows() throws Exception {
    assertThat(
            Maintenance.changedRows(
                "{\"inbox\": \"x\", \"deleted_processed\": 5, \"stripped_processed\": 2, \"deleted_dead\": 1, \"more\": true}"))
        .isEqualTo(8);
  }
}
