package dev.pginbox.inbox.postgres.internal.worker.membership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.Partitioning;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ClaimScopeTest {

  @Test
  void the_only_static_partition_claims_without_a_bucket_filter() {
    ClaimScope scope = new ClaimScope(PartitionAssignment.of(0, 1), "orders", "w1");
    assertThat(scope.claimable().buckets()).isNull();
    assertThat(scope.claimable().partitions()).isNull(); // no lease to guard
  }

  @Test
  void one_of_several_static_partitions_claims_its_own_buckets() {
    ClaimScope scope = new ClaimScope(PartitionAssignment.of(1, 3), "orders", "w1");
    assertThat(scope.claimable().buckets()).containsExactly(Partitioning.bucketsOf(1, 3));
    assertThat(scope.claimable().partitions()).isNull();
  }

  @Test
  void an_automatic_worker_holding_every_partition_claims_without_a_bucket_filter() {
    PartitionAssignment.Automatic automatic =
        (PartitionAssignment.Automatic) PartitionAssignment.automatic();
    int partitions = automatic.partitions();
    ClaimScope scope = new ClaimScope(automatic, "orders", "w1");
    assertThat(scope.claimable().nothing()).isTrue(); // before the first heartbeat
    int[] all = java.util.stream.IntStream.range(0, partitions).toArray();
    scope.held(all);
    assertThat(scope.claimable().buckets()).isNull();
    assertThat(scope.claimable().partitions()).containsExactly(all);
    scope.held(new int[] {2});
    assertThat(scope.claimable().partitions()).containsExactly(2);
    int[] two = scope.claimable().buckets();
    assertThat(two).isNotNull().hasSizeLessThan(Partitioning.BUCKETS);
    assertThat(Arrays.stream(two).allMatch(b -> Partitioning.ownerOf(b, partitions) == 2)).isTrue();
  }
}
