package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.Partitioning;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Static partitions split the inbox exactly; automatic ones are shared by leases and survive a dead
 * worker.
 */
class PartitionsTest extends WorkerTestSupport {

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void static_partitions_zero_to_three_of_four_cover_every_message_once_and_only_their_own(
      boolean listen) {
    String inbox = newInbox("static");
    List<String> foreign = new CopyOnWriteArrayList<>();
    for (int p = 0; p < 4; p++) {
      int partition = p;
      track(
              PostgresInboxWorker.builder(
                      dataSource(),
                      options(inbox, listen).partitions(PartitionAssignment.of(p, 4)).build())
                  .handler(
                      (m, tx) -> {
                        if (!Partitioning.isMyPartition(m.aggregateId(), partition, 4)) {
                          foreign.add(m.eventId());
                        }
                        recordHandled(
                            tx.unwrap(Handle.class),
                            inbox,
                            m.eventId(),
                            "p" + partition,
                            m.aggregateId());
                        return Outcome.processed();
                      })
                  .build())
          .start();
    }
    insert(inbox, "m", 0, 2000, 500);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 2000);
    assertThat(foreign).isEmpty();
    assertThat(count("SELECT count(DISTINCT worker) FROM " + inbox + "_handled")).isEqualTo(4);
    // The SQL partition function agrees with what each worker took.
    assertThat(
            count(
                "SELECT count(*) FROM "
                    + inbox
                    + "_handled h WHERE NOT inbox.inbox_is_my_partition('"
                    + inbox
                    + "', h.aggregate_id, substr(h.worker, 2)::int, 4)"))
        .isZero();
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void
      automatic_partitions_are_shared_and_a_dead_workers_partitions_are_taken_over_without_duplicates(
          boolean listen) throws java.sql.SQLException {
    String inbox = newInbox("auto");
    PartitionAssignment auto = new PartitionAssignment.Automatic(8, Duration.ofMillis(1500));
    Map<String, Set<Integer>> bucketsSeen = new ConcurrentHashMap<>();
    List<InboxWorker> workers = new ArrayList<>();
    // The first worker reaches the database through a data source the test can sever, like a crash.
    RefusingDataSource victimDb = new RefusingDataSource(dataSource(), false);
    List<String> violations = new CopyOnWriteArrayList<>();
    for (int w = 0; w < 3; w++) {
      String name = "w" + w;
      workers.add(
          track(
              PostgresInboxWorker.builder(
                      w == 0 ? victimDb : dataSource(),
                      options(inbox, listen).partitions(auto).batchSize(20).build())
                  .workerId(name)
                  .handler(
                      (m, tx) -> {
                        bucketsSeen
                            .computeIfAbsent(name, k -> ConcurrentHashMap.newKeySet())
                            .add(m.bucket());
                        Handle h = tx.unwrap(Handle.class);
                        // Inside the claim transaction the lease guard holds: the partition is
                        // ours, now.
                        String owner =
                            h.createQuery(
                                    "SELECT owner_id FROM inbox.inbox_partition_leases "
                                        + "WHERE inbox_name = ? AND partition_id = ? AND lease_expires_at > clock_timestamp() - interval '1 hour'")
                                .bind(0, inbox)
                                .bind(1, Partitioning.ownerOf(m.bucket(), 8))
                                .mapTo(String.class)
                                .findOne()
                                .orElse(null);
                        if (!name.equals(owner)) {
                          violations.add(
                              m.eventId()
                                  + " handled by "
                                  + name
                                  + " in a partition owned by "
                                  + owner);
                        }
                        recordHandled(h, inbox, m.eventId(), name, m.aggregateId());
                        return Outcome.processed();
                      })
                  .build()));
    }
    workers.forEach(InboxWorker::start);
    // Fair shares: 8 partitions over 3 workers = 3 + 3 + 2.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(leaseCounts(inbox)).containsExactly(2L, 3L, 3L));

    // Load while a worker dies without giving anything back; a checker samples the leases
    // meanwhile.
    AtomicBoolean running = new AtomicBoolean(true);
    Thread checker =
        new Thread(
            () -> {
              while (running.get()) {
                // A partition never has two live owners: one row per partition, and its owner is a
                // live worker.
                long bad =
                    count(
                        "SELECT count(*) FROM inbox.inbox_partition_leases l WHERE l.inbox_name = '"
                            + inbox
                            + "' AND l.lease_expires_at > now() AND l.owner_id NOT IN ('w0', 'w1', 'w2')");
                if (bad > 0) {
                  violations.add("foreign owner");
                }
              }
            });
    checker.start();
    int inserted = 0;
    for (; inserted < 1500; inserted += 100) {
      insert(inbox, "m", inserted, 100, 300);
    }
    // w0 dies without a word: its sessions end (open claims roll back) and it never reaches the
    // database again, so it cannot give anything back.
    victimDb.sever();
    for (; inserted < 3000; inserted += 100) {
      insert(inbox, "m", inserted, 100, 300);
    }
    // The survivors take over the victim's partitions once its lease has expired: 4 + 4.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(leaseCounts(inbox)).containsExactly(4L, 4L);
              assertThat(
                      count(
                          "SELECT count(*) FROM inbox.inbox_partition_leases WHERE inbox_name = '"
                              + inbox
                              + "' AND owner_id = 'w0' AND lease_expires_at > now()"))
                  .isZero();
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 3000);
    running.set(false);
    assertThat(violations).isEmpty();
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
    assertThat(
            count("SELECT count(DISTINCT worker) FROM " + inbox + "_handled WHERE worker <> 'w0'"))
        .isEqualTo(2);
  }

  /**
   * Fewer partitions than workers: the extra workers stand by, claiming nothing, and one of them
   * takes over the partition of a worker that stops. docs/consuming.md recommends this to keep the
   * number of batches side by side at what the database's cores can run.
   */
  @Test
  void workers_beyond_the_partitions_stand_by_and_take_over_a_stopped_workers_partition() {
    String inbox = newInbox("standby");
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "')");
    // Leases long enough that a slow heartbeat on a busy machine does not move one by expiry.
    PartitionAssignment auto = new PartitionAssignment.Automatic(2, Duration.ofSeconds(6));
    Map<String, InboxWorker> workers = new ConcurrentHashMap<>();
    for (int w = 0; w < 4; w++) {
      String name = "w" + w;
      workers.put(name, track(automaticWorker(inbox, auto, name, false)));
    }
    workers.values().forEach(InboxWorker::start);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(leaseCounts(inbox)).containsExactly(1L, 1L));
    Set<String> active = leaseOwners(inbox);
    // Operators see the other two as live workers that hold no partition.
    assertThat(
            count(
                "SELECT count(*) FROM inbox.inbox_workers('"
                    + inbox
                    + "') WHERE state = 'live' AND partitions_held = '{}'"))
        .isEqualTo(2);

    insert(inbox, "a", 0, 1000, 100);
    awaitDrained(inbox, Duration.ofSeconds(60));
    assertThat(workersThatHandled(inbox, "a-%")).isEqualTo(active);

    // An active worker stops: it gives its lease back, and a worker on standby takes it at its
    // next heartbeat, a third of a lease later; the other active worker keeps its own.
    String leaving = active.iterator().next();
    workers.get(leaving).stop();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(leaseCounts(inbox)).containsExactly(1L, 1L);
              assertThat(leaseOwners(inbox)).doesNotContain(leaving);
            });
    Set<String> after = leaseOwners(inbox);
    assertThat(after).containsAll(active.stream().filter(w -> !w.equals(leaving)).toList());

    insert(inbox, "b", 0, 1000, 100);
    awaitDrained(inbox, Duration.ofSeconds(60));
    assertThat(workersThatHandled(inbox, "b-%")).isEqualTo(after);
    // Every message once (the _handled key), none retried.
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(2000);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
  }

  /**
   * With a one-minute lease a heartbeat comes every 20 s, but the workers need not wait for it: a
   * worker that joins, and one that leaves, tell the others on the inbox's lease channel, and they
   * beat at once. So the joining worker has its share, and the partitions of the one that left are
   * taken, well before anyone's next heartbeat.
   */
  @Test
  void
      a_joining_worker_gets_its_share_and_a_leaving_ones_partitions_are_taken_before_the_next_heartbeat() {
    String inbox = newInbox("lease_news");
    PartitionAssignment auto = new PartitionAssignment.Automatic(4, Duration.ofSeconds(60));
    InboxWorker first = track(automaticWorker(inbox, auto, "first", true));
    first.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> leaseCounts(inbox).equals(List.of(4L)));

    InboxWorker second = track(automaticWorker(inbox, auto, "second", true));
    second.start();
    // The first worker's next heartbeat is about 20 s away.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(leaseCounts(inbox)).containsExactly(2L, 2L));
    insert(inbox, "a", 0, 400, 40);
    awaitDrained(inbox, Duration.ofSeconds(30));
    assertThat(workersThatHandled(inbox, "a-%")).containsExactlyInAnyOrder("first", "second");

    // So is the second worker's, which beat when it took its share.
    first.stop();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(leaseCounts(inbox)).containsExactly(4L);
              assertThat(leaseOwners(inbox)).containsExactly("second");
            });
    insert(inbox, "b", 0, 400, 40);
    awaitDrained(inbox, Duration.ofSeconds(30));
    assertThat(workersThatHandled(inbox, "b-%")).containsExactly("second");
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(800);
  }

  /** A worker {@code id} on {@code partitions} that records what it handles under its id. */
  private static InboxWorker automaticWorker(
      String inbox, PartitionAssignment partitions, String id, boolean listen) {
    return PostgresInboxWorker.builder(
            dataSource(), options(inbox, listen).partitions(partitions).batchSize(20).build())
        .workerId(id)
        .handler(recording(inbox, id))
        .build();
  }

  @Test
  void a_worker_restarted_under_its_old_id_takes_its_leases_back_at_once() {
    PartitionAssignment auto = new PartitionAssignment.Automatic(4, Duration.ofSeconds(60));
    // The previous incarnation of "collector-1" holds every partition for another minute: it died
    // (no worker_leave) right after its heartbeat.
    String same = newInbox("restart_same");
    String other = newInbox("restart_other");
    for (String inbox : List.of(same, other)) {
      execute(
          "SELECT inbox.worker_heartbeat('"
              + inbox
              + "', 'collector-1', 4, interval '60 seconds')");
      insert(inbox, "m", 0, 10, 10);
    }
    InboxWorker restarted =
        PostgresInboxWorker.builder(
                dataSource(), options(same, false).partitions(auto).batchSize(50).build())
            .workerId("collector-1")
            .handler((m, tx) -> Outcome.processed())
            .build();
    assertThat(restarted.runOnce()).as("the same id renews its own leases").isEqualTo(10);
    InboxWorker renamed =
        PostgresInboxWorker.builder(
                dataSource(), options(other, false).partitions(auto).batchSize(50).build())
            .workerId("collector-1-" + System.nanoTime())
            .handler((m, tx) -> Outcome.processed())
            .build();
    assertThat(renamed.runOnce()).as("a new id waits for the old leases to expire").isZero();
  }

  private static Set<String> leaseOwners(String inbox) {
    try (Handle h = JDBI.open()) {
      return Set.copyOf(
          h.createQuery(
                  "SELECT owner_id FROM inbox.inbox_partition_leases WHERE inbox_name = ? "
                      + "AND lease_expires_at > now()")
              .bind(0, inbox)
              .mapTo(String.class)
              .list());
    }
  }

  private static Set<String> workersThatHandled(String inbox, String eventIds) {
    try (Handle h = JDBI.open()) {
      return Set.copyOf(
          h.createQuery("SELECT DISTINCT worker FROM " + inbox + "_handled WHERE event_id LIKE ?")
              .bind(0, eventIds)
              .mapTo(String.class)
              .list());
    }
  }

  private static List<Long> leaseCounts(String inbox) {
    try (Handle h = JDBI.open()) {
      return h.createQuery(
              "SELECT count(*) FROM inbox.inbox_partition_leases WHERE inbox_name = ? "
                  + "AND lease_expires_at > now() GROUP BY owner_id ORDER BY 1")
          .bind(0, inbox)
          .mapTo(Long.class)
          .list();
    }
  }
}
