package dev.pginbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PartitioningTest {

  @Test
  void bucket_vectors_match_the_sql_function() {
    // Computed with inbox.inbox_bucket on PostgreSQL 15 (x86-64).
    assertThat(Partitioning.bucketOf("order-42")).isEqualTo(832);
    assertThat(Partitioning.bucketOf(null)).isEqualTo(621);
    assertThat(Partitioning.bucketOf("")).isEqualTo(621);
    assertThat(Partitioning.ownerOf(832, 4)).isEqualTo(3);
  }

  @Test
  void the_hash_is_postgresqls_hashtext_for_every_length_of_the_last_block() {
    // SELECT hashtext(left('abcdefghijklmnopqrstuvwxyz', n)) for n = 0..26 on PostgreSQL 15:
    // two full 12-byte blocks and every remainder 0..11.
    int[] expected = {
      -1477818771,
      1075015857,
      1718550461,
      -785388649,
      -393934804,
      -445659580,
      -1747460160,
      501636814,
      -1960928205,
      -92131489,
      1948051852,
      -1483803693,
      -1586087212,
      405849808,
      315215413,
      -1389283689,
      -2079749669,
      1648114242,
      -952297252,
      -684650393,
      766334193,
      2124303250,
      -50608962,
      -1149376136,
      1251586959,
      980150893,
      167831483
    };
    String letters = "abcdefghijklmnopqrstuvwxyz";
    for (int n = 0; n <= 26; n++) {
      byte[] bytes = letters.substring(0, n).getBytes(StandardCharsets.UTF_8);
      assertThat(Partitioning.hashBytes(bytes)).as("length %d", n).isEqualTo(expected[n]);
    }
    // multi-byte UTF-8 and a supplementary character
    assertThat(Partitioning.hashBytes("Zürich-ü-日本".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(-1529557867);
    assertThat(Partitioning.hashBytes("\uD83D\uDE00emoji".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(747023374);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 7, 16})
  void every_bucket_has_exactly_one_owner(int workers) {
    Set<Integer> seen = new HashSet<>();
    for (int worker = 0; worker < workers; worker++) {
      for (int bucket : Partitioning.bucketsOf(worker, workers)) {
        assertThat(seen.add(bucket)).as("bucket %d owned twice", bucket).isTrue();
        assertThat(Partitioning.ownerOf(bucket, workers)).isEqualTo(worker);
      }
    }
    assertThat(seen).hasSize(Partitioning.BUCKETS);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 8, 15})
  void growing_by_one_worker_moves_only_what_the_new_worker_takes(int workers) {
    long moved =
        IntStream.range(0, Partitioning.BUCKETS)
            .filter(b -> Partitioning.ownerOf(b, workers) != Partitioning.ownerOf(b, workers + 1))
            .peek(b -> assertThat(Partitioning.ownerOf(b, workers + 1)).isEqualTo(workers))
            .count();
    double expected = Partitioning.BUCKETS / (workers + 1.0);
    // Rendezvous hashing: only buckets won by the new worker move; about 1/(N+1) of them.
    assertThat((double) moved).isBetween(expected * 0.7, expected * 1.3);
  }

  @Test
  void null_aggregate_belongs_to_one_worker() {
    long owners = IntStream.range(0, 5).filter(w -> Partitioning.isMyPartition(null, w, 5)).count();
    assertThat(owners).isEqualTo(1);
  }

  @Test
  void invalid_worker_numbers_are_rejected() {
    assertThatThrownBy(() -> Partitioning.isMyPartition("a", 4, 4))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThatThrownBy(() -> Partitioning.isMyPartition("a", 0, 0))
        .isInstanceOf(InvalidInboxArgumentException.class);
    assertThatThrownBy(() -> Partitioning.bucketsOf(-1, 3))
        .isInstanceOf(InvalidInboxArgumentException.class);
  }

  @Test
  void buckets_are_ascending() {
    int[] buckets = Partitioning.bucketsOf(2, 5);
    int[] sorted = buckets.clone();
    Arrays.sort(sorted);
    assertThat(buckets).containsExactly(sorted);
  }
}
