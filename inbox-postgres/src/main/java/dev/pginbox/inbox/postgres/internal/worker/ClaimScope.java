package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.Partitioning;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * Which buckets a worker may claim from. All: every bucket (NULL). Static: the buckets of its
 * partition, fixed. Automatic: the buckets of the partitions it leases, re-checked by {@code
 * inbox.lease_guard} inside every claim transaction.
 */
final class ClaimScope {

  private final String inbox;
  private final String workerId;
  private final int[] staticBuckets;
  private final int[][] bucketsByPartition;

  /** Automatic mode: the partitions the last heartbeat returned. */
  private volatile int[] heldPartitions = new int[0];

  ClaimScope(PartitionAssignment assignment, String inbox, String workerId) {
    this.inbox = inbox;
    this.workerId = workerId;
    if (assignment instanceof PartitionAssignment.Static s) {
      staticBuckets = allAsNull(Partitioning.bucketsOf(s.id(), s.count()));
      bucketsByPartition = null;
    } else if (assignment instanceof PartitionAssignment.Automatic a) {
      staticBuckets = null;
      bucketsByPartition = bucketsByPartition(a.partitions());
    } else {
      staticBuckets = null;
      bucketsByPartition = null;
    }
  }

  private static int[][] bucketsByPartition(int partitions) {
    int[] counts = new int[partitions];
    int[] owner = new int[Partitioning.BUCKETS];
    for (int b = 0; b < Partitioning.BUCKETS; b++) {
      owner[b] = Partitioning.ownerOf(b, partitions);
      counts[owner[b]]++;
    }
    int[][] result = new int[partitions][];
    int[] fill = new int[partitions];
    for (int p = 0; p < partitions; p++) {
      result[p] = new int[counts[p]];
    }
    for (int b = 0; b < Partitioning.BUCKETS; b++) {
      result[owner[b]][fill[owner[b]]++] = b;
    }
    return result;
  }

  boolean automatic() {
    return bucketsByPartition != null;
  }

  void held(int[] partitions) {
    heldPartitions = partitions.clone();
  }

  int[] held() {
    return heldPartitions.clone();
  }

  /**
   * Buckets for counting waiting messages (no guard needed: a count decides nothing); null = all.
   */
  int[] bucketsForCount() {
    if (bucketsByPartition != null) {
      return allAsNull(bucketsOf(heldPartitions));
    }
    return staticBuckets;
  }

  /**
   * Buckets for a claim in the current transaction of {@code wc}; in the automatic mode this runs
   * the lease guard first, in the same transaction. Null = all buckets; empty = claim nothing.
   */
  int[] bucketsForClaim(WorkerConnection wc) throws SQLException {
    if (bucketsByPartition == null) {
      return staticBuckets;
    }
    int[] believed = heldPartitions;
    if (believed.length == 0) {
      return new int[0];
    }
    PreparedStatement guard = wc.statement("lease_guard");
    guard.setString(1, inbox);
    guard.setString(2, workerId);
    guard.setArray(3, wc.connection().createArrayOf("int4", box(believed)));
    try (ResultSet rs = guard.executeQuery()) {
      rs.next();
      Array held = rs.getArray(1);
      Integer[] partitions = (Integer[]) held.getArray();
      return allAsNull(bucketsOf(Arrays.stream(partitions).mapToInt(Integer::intValue).toArray()));
    }
  }

  /**
   * Every bucket is the same scope as no filter, and much cheaper to claim with: the claim tests
   * {@code bucket = ANY(...)} on every candidate, a linear search through the array.
   */
  private static int[] allAsNull(int[] buckets) {
    return buckets.length == Partitioning.BUCKETS ? null : buckets;
  }

  private int[] bucketsOf(int[] partitions) {
    int n = 0;
    for (int p : partitions) {
      n += bucketsByPartition[p].length;
    }
    int[] buckets = new int[n];
    int i = 0;
    for (int p : partitions) {
      System.arraycopy(bucketsByPartition[p], 0, buckets, i, bucketsByPartition[p].length);
      i += bucketsByPartition[p].length;
    }
    return buckets;
  }

  static Integer[] box(int[] values) {
    Integer[] boxed = new Integer[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return boxed;
  }
}
