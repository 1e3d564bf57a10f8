package dev.pginbox.inbox.postgres.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MaintenanceTest {

  @Test
  void purge_results_count_deleted_and_stripped_rows() throws Exception {
    assertThat(
            Maintenance.changedRows(
                "{\"inbox\": \"x\", \"deleted_processed\": 5, \"stripped_processed\": 2, \"deleted_dead\": 1, \"more\": true}"))
        .isEqualTo(8);
  }
}
