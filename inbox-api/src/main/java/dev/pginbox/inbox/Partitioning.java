package dev.pginbox.inbox;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The partition function, identical to {@code inbox.inbox_is_my_partition} in SQL.
 *
 * <p>An aggregate id hashes to one of {@value #BUCKETS} buckets (the first 32 bits of the MD5 of
 * its UTF-8 bytes, low 10 bits; a null id hashes like the empty string). A bucket belongs to the
 * worker with the highest weight {@code md5("<bucket>:<worker>")} (rendezvous hashing), so growing
 * the worker count from N to N+1 moves only the buckets the new worker wins, about 1/(N+1).
 */
public final class Partitioning {

  public static final int BUCKETS = 1024;

  private Partitioning() {}

  public static int bucketOf(String aggregateId) {
    return (int) (md5Prefix32(aggregateId == null ? "" : aggregateId) & (BUCKETS - 1));
  }

  public static int ownerOf(int bucket, int totalWorkers) {
    requireTotal(totalWorkers);
    if (bucket < 0 || bucket >= BUCKETS) {
      throw new InvalidInboxArgumentException(
          "bucket must be in 0.." + (BUCKETS - 1) + ", got " + bucket, null);
    }
    int best = 0;
    long bestWeight = -1;
    for (int worker = 0; worker < totalWorkers; worker++) {
      long weight = md5Prefix32(bucket + ":" + worker);
      if (weight > bestWeight) {
        bestWeight = weight;
        best = worker;
      }
    }
    return best;
  }

  public static boolean isMyPartition(String aggregateId, int workerId, int totalWorkers) {
    requireWorker(workerId, totalWorkers);
    return ownerOf(bucketOf(aggregateId), totalWorkers) == workerId;
  }

  /** The buckets worker {@code workerId} of {@code totalWorkers} owns, ascending. */
  public static int[] bucketsOf(int workerId, int totalWorkers) {
    requireWorker(workerId, totalWorkers);
    int[] buckets = new int[BUCKETS];
    int n = 0;
    for (int b = 0; b < BUCKETS; b++) {
      if (ownerOf(b, totalWorkers) == workerId) {
        buckets[n++] = b;
      }
    }
    return Arrays.copyOf(buckets, n);
  }

  private static void requireTotal(int totalWorkers) {
    if (totalWorkers < 1) {
      throw new InvalidInboxArgumentException(
          "total workers must be at least 1, got " + totalWorkers, null);
    }
  }

  private static void requireWorker(int workerId, int totalWorkers) {
    requireTotal(totalWorkers);
    if (workerId < 0 || workerId >= totalWorkers) {
      throw new InvalidInboxArgumentException(
          "worker id must be in 0.." + (totalWorkers - 1) + ", got " + workerId, null);
    }
  }

  /** The first four bytes of the MD5 digest as an unsigned 32-bit number. */
  private static long md5Prefix32(String text) {
    byte[] d = md5().digest(text.getBytes(StandardCharsets.UTF_8));
    return ((d[0] & 0xffL) << 24) | ((d[1] & 0xffL) << 16) | ((d[2] & 0xffL) << 8) | (d[3] & 0xffL);
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has MD5", e);
    }
  }
}
