package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every worker lists itself in the registry that inbox.inbox_workers reads, whatever its mode. */
class WorkerRegistryTest extends WorkerTestSupport {

  @Test
  void a_running_worker_is_live_with_its_assignment_and_stopped_after_stop() {
    String inbox = newInbox("registry");
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, false)
                        .partitions(PartitionAssignment.of(1, 3))
                        .concurrency(2)
                        .claimAhead(true)
                        .build())
                .handler((m, tx) -> Outcome.processed())
                .build());
    worker.start();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox.inbox_workers('"
                            + inbox
                            + "') WHERE state = 'live' AND assignment = 'static'")
                    == 1);
    assertThat(count("SELECT pid FROM inbox.inbox_workers('" + inbox + "') WHERE state = 'live'"))
        .isEqualTo(ProcessHandle.current().pid());
    // What it runs with, as the operator views show it.
    assertThat(
            count(
                "SELECT concurrency FROM inbox.inbox_workers('"
                    + inbox
                    + "') WHERE state = 'live' AND claim_ahead"))
        .isEqualTo(2);
    // The static worker owns partition 1 of 3 in the lag view.
    assertThat(
            count(
                "SELECT count(*) FROM inbox.inbox_partition_lag('"
                    + inbox
                    + "') WHERE partition_id = 1 AND owner IS NOT NULL"))
        .isEqualTo(1);

    worker.stop();
    assertThat(
            count(
                "SELECT count(*) FROM inbox.inbox_workers('"
                    + inbox
                    + "') WHERE state = 'stopped' AND stopped_at IS NOT NULL"))
        .isEqualTo(1);
  }
}
