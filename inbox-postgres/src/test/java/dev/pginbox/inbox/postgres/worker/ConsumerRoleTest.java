package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.LoginRoles;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A login role whose only privileges come from the group role inbox_consumer runs a full worker:
 * claims, outcomes (processed, retry, dead), static and automatic partitions, retention. A role
 * given one inbox with inbox.grant_inbox cannot touch another inbox's leases.
 */
class ConsumerRoleTest extends WorkerTestSupport {

  static Login consumer;

  @BeforeAll
  static void consumerRole() throws SQLException {
    consumer = new LoginRoles(DB).create("worker", "inbox_consumer");
  }

  private PostgresInboxWorker.Builder worker(String inbox, PartitionAssignment partitions) {
    return PostgresInboxWorker.builder(
        consumer.dataSource(), options(inbox, true).partitions(partitions).build());
  }

  @Test
  void a_consumer_runs_a_worker_with_retries_dead_letters_and_retention() {
    String inbox = newInbox("consumer");
    execute(
        "UPDATE inbox.inbox_config SET processed_retention = interval '0', dlq_retention = interval '0' "
            + "WHERE inbox_name = '"
            + inbox
            + "'");
    Set<String> attempts = ConcurrentHashMap.newKeySet();
    track(
            PostgresInboxWorker.builder(consumer.dataSource(), options(inbox, true).build())
                .retentionInterval(Duration.ofMillis(100))
                .handler(
                    (m, tx) -> {
                      if (m.eventId().startsWith("dead")) {
                        return Outcome.dead("refused");
                      }
                      if (m.eventId().startsWith("flaky") && attempts.add(m.eventId())) {
                        throw new IllegalStateException("first attempt fails");
                      }
                      return Outcome.processed();
                    })
                .build())
        .start();
    insert(inbox, "ok", 0, 40, 10);
    insert(inbox, "flaky", 0, 5, 5);
    insert(inbox, "dead", 0, 3, 3);
    // Every message handled (the flaky ones on their second attempt), then deleted by retention.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> attempts.size() == 5 && count("SELECT count(*) FROM inbox." + inbox) == 0);
  }

  @Test
  void a_consumer_runs_static_and_automatic_partitions() {
    String inbox = newInbox("consumer_parts");
    Set<String> handled = ConcurrentHashMap.newKeySet();
    for (int p = 0; p < 2; p++) {
      track(
              worker(inbox, PartitionAssignment.of(p, 2))
                  .handler(
                      (m, tx) -> {
                        handled.add(m.eventId());
                        return Outcome.processed();
                      })
                  .build())
          .start();
    }
    for (int w = 0; w < 2; w++) {
      track(
              worker(inbox, new PartitionAssignment.Automatic(4, Duration.ofSeconds(3)))
                  .handler(
                      (m, tx) -> {
                        handled.add(m.eventId());
                        return Outcome.processed();
                      })
                  .build())
          .start();
    }
    insert(inbox, "m", 0, 200, 50);
    await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == 200);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(DISTINCT owner_id) FROM inbox.inbox_partition_leases "
                            + "WHERE lease_expires_at > now() AND inbox_name = '"
                            + inbox
                            + "'")
                    == 2);
  }

  @Test
  void a_consumer_of_one_inbox_cannot_take_or_block_the_leases_of_another() throws SQLException {
    String mine = newInbox("mine");
    String theirs = newInbox("theirs");
    Login perInbox = new LoginRoles(DB).create("mine_consumer");
    execute("SELECT inbox.grant_inbox('" + mine + "', '" + perInbox.name() + "', 'consumer')");
    perInbox.execute(
        "SELECT inbox.worker_heartbeat('" + mine + "', 'w', 2, interval '10 seconds')");
    execute("SELECT inbox.worker_heartbeat('" + theirs + "', 'owner', 2, interval '10 seconds')");

    LoginRoles.refused(
        () ->
            perInbox.execute(
                "SELECT inbox.worker_heartbeat('" + theirs + "', 'w', 2, interval '10 seconds')"));
    perInbox.execute(
        "UPDATE inbox.inbox_partition_leases SET owner_id = 'w' WHERE inbox_name = '"
            + theirs
            + "'",
        "DELETE FROM inbox.inbox_workers WHERE inbox_name = '" + theirs + "'");
    assertThat(
            consumer.count(
                "SELECT count(*) FROM inbox.inbox_partition_leases WHERE inbox_name = '"
                    + theirs
                    + "' AND owner_id = 'owner'"))
        .isEqualTo(2);
    assertThat(
            count("SELECT count(*) FROM inbox.inbox_workers WHERE inbox_name = '" + theirs + "'"))
        .isEqualTo(1);
    LoginRoles.refused(() -> perInbox.execute("SELECT * FROM inbox.claim_" + theirs + "(10)"));

    // Nor forge or remove its workers in the registry the operator views read.
    execute("SELECT inbox.worker_announce('" + theirs + "', 'owner', '{\"assignment\": \"all\"}')");
    LoginRoles.refused(
        () ->
            perInbox.execute(
                "SELECT inbox.worker_announce('"
                    + theirs
                    + "', 'forged', '{\"assignment\": \"static\", \"partitions\": 3}')"));
    LoginRoles.refused(
        () ->
            perInbox.execute(
                "INSERT INTO inbox.inbox_worker_registry (inbox_name, worker_id) VALUES ('"
                    + theirs
                    + "', 'forged')"));
    perInbox.execute(
        "UPDATE inbox.inbox_worker_registry SET stopped_at = now() WHERE inbox_name = '"
            + theirs
            + "'",
        "DELETE FROM inbox.inbox_worker_registry WHERE inbox_name = '" + theirs + "'");
    assertThat(
            count(
                "SELECT count(*) FROM inbox.inbox_worker_registry WHERE inbox_name = '"
                    + theirs
                    + "' AND worker_id = 'owner' AND stopped_at IS NULL"))
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM inbox.inbox_worker_registry WHERE inbox_name = '"
                    + theirs
                    + "'"))
        .isEqualTo(1);
    perInbox.execute("SELECT inbox.worker_announce('" + mine + "', 'w', '{}')");
  }
}
