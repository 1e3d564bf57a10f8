package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.Partitioning;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * inbox.lease_guard_buckets (definitions/workers.sql), the lease guard that runs inside every claim
 * statement of a worker with automatic partitions: it passes the worker's buckets through while
 * every lease it believes it holds is still its own, narrows them to the partitions it still holds
 * when a lease moved since its heartbeat, and hands back no bucket when none is left (the claim
 * statement then skips the claim).
 */
class LeaseGuardBucketsTest extends InboxTestSupport {

  private static final int PARTITIONS = 4;

  private static int[] guarded(Handle h, String inbox, int[] partitions, int[] buckets) {
    Integer[] result =
        h.select(
                "SELECT inbox.lease_guard_buckets(?, 'w1', ?, ?, ?)",
                inbox,
                partitions,
                PARTITIONS,
                buckets)
            .mapTo(Integer[].class)
            .one();
    return result == null ? null : Arrays.stream(result).mapToInt(Integer::intValue).toArray();
  }

  private static int[] bucketsOf(int... partitions) {
    return IntStream.range(0, Partitioning.BUCKETS)
        .filter(
            b -> Arrays.stream(partitions).anyMatch(p -> Partitioning.ownerOf(b, PARTITIONS) == p))
        .toArray();
  }

  private static String inboxHeldByW1(String name) {
    manager.createInbox(name);
    List<Integer> held =
        jdbi.withHandle(
            h ->
                h.select(
                        "SELECT unnest(inbox.worker_heartbeat(?, 'w1', ?, interval '1 hour'))",
                        name,
                        PARTITIONS)
                    .mapTo(Integer.class)
                    .list());
    assertThat(held).containsExactly(0, 1, 2, 3);
    return name;
  }

  @Test
  void without_partitions_the_buckets_pass_as_they_are() {
    String inbox = inboxHeldByW1("guard_none");
    jdbi.useHandle(
        h -> {
          assertThat(guarded(h, inbox, null, null)).isNull();
          assertThat(guarded(h, inbox, null, new int[] {5, 7})).containsExactly(5, 7);
        });
  }

  @Test
  void leases_still_held_pass_the_buckets_through_and_stay_locked_until_the_transaction_ends() {
    String inbox = inboxHeldByW1("guard_held");
    jdbi.useTransaction(
        h -> {
          assertThat(guarded(h, inbox, new int[] {0, 1, 2, 3}, null)).isNull();
          int[] two = bucketsOf(2);
          assertThat(guarded(h, inbox, new int[] {2}, two)).containsExactly(two);
          // A hand-over of partition 2 must wait for this transaction: its row is locked.
          try (Handle other = jdbi.open()) {
            assertThat(
                    other
                        .select(
                            "SELECT partition_id FROM inbox.inbox_partition_leases"
                                + " WHERE inbox_name = ? AND partition_id = 2"
                                + " FOR UPDATE SKIP LOCKED",
                            inbox)
                        .mapTo(Integer.class)
                        .list())
                .isEmpty();
          }
        });
  }

  @Test
  void a_lease_that_moved_narrows_the_buckets_to_the_partitions_still_held() {
    String inbox = inboxHeldByW1("guard_moved");
    jdbi.useHandle(
        h -> {
          h.execute(
              "UPDATE inbox.inbox_partition_leases SET owner_id = 'w2'"
                  + " WHERE inbox_name = ? AND partition_id IN (1, 3)",
              inbox);
          assertThat(guarded(h, inbox, new int[] {0, 1, 2, 3}, null))
              .containsExactly(bucketsOf(0, 2));
          assertThat(guarded(h, inbox, new int[] {1, 2}, bucketsOf(1, 2)))
              .containsExactly(bucketsOf(2));
        });
  }

  @Test
  void no_lease_left_leaves_no_bucket() {
    String inbox = inboxHeldByW1("guard_lost");
    jdbi.useHandle(
        h -> {
          h.execute(
              "UPDATE inbox.inbox_partition_leases SET lease_expires_at = now() - interval '1 s'"
                  + " WHERE inbox_name = ?",
              inbox);
          assertThat(guarded(h, inbox, new int[] {0, 1, 2, 3}, null)).isEmpty();
        });
  }
}
