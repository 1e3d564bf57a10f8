package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.LoginRoles;
import dev.pginbox.inbox.postgres.LoginRoles.Login;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import dev.pginbox.inbox.postgres.SqlScripts;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * Coordination cannot be blocked by a role without privileges on the inbox: a role that may only
 * connect holds every advisory lock key the inbox used to coordinate with (install, catalog,
 * retention election, partition leases), and installs, create_inbox, automatic partitions and the
 * retention sweep go on as if it were not there.
 */
class CoordinationOutsiderTest extends WorkerTestSupport {

  @Test
  void a_role_holding_the_old_advisory_lock_keys_stalls_nothing() throws Exception {
    String inbox = newInbox("outsider");
    execute(
        "UPDATE inbox.inbox_config SET processed_retention = interval '0' WHERE inbox_name = '"
            + inbox
            + "'");
    Login outsider = new LoginRoles(DB).create("lock_holder");
    try (Connection held = outsider.dataSource().getConnection();
        Statement s = held.createStatement()) {
      s.execute("SELECT pg_advisory_lock(hashtextextended('inbox.install', 0))");
      s.execute("SELECT pg_advisory_lock(hashtextextended('inbox.catalog', 0))");
      s.execute("SELECT pg_advisory_lock(hashtextextended('inbox.retention:" + inbox + "', 0))");
      s.execute(
          "SELECT pg_advisory_lock(hashtext('inbox.partition:"
              + inbox
              + "'), p) FROM generate_series(0, 3) p");

      // Bounded waits: on a protocol that the outsider can block these fail instead of hanging.
      try (Handle h = JDBI.open()) {
        h.execute("SET lock_timeout = '5s'");
        h.execute("SELECT inbox.create_inbox('outsider_cannot_block_create')");
        SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT);
      }

      track(
              PostgresInboxWorker.builder(
                      dataSource(),
                      options(inbox, true)
                          .partitions(new PartitionAssignment.Automatic(4, Duration.ofSeconds(3)))
                          .build())
                  .retentionInterval(Duration.ofMillis(100))
                  .handler((m, tx) -> Outcome.processed())
                  .build())
          .start();
      insert(inbox, "m", 0, 100, 20);
      // Claimed through leases on all four partitions, then deleted by the retention sweep.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  count(
                              "SELECT count(*) FROM inbox.inbox_partition_leases WHERE inbox_name = '"
                                  + inbox
                                  + "' AND owner_id IS NOT NULL")
                          == 4
                      && count("SELECT count(*) FROM inbox." + inbox) == 0);
      assertThat(held.isValid(1)).isTrue();
    }
  }
}
