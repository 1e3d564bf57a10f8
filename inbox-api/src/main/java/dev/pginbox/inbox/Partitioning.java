package dev.pginbox.inbox;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The partition function, identical to {@code inbox.inbox_is_my_partition} in SQL.
 *
 * <p>An aggregate id hashes to one of {@value #BUCKETS} buckets: the low 10 bits of PostgreSQL's
 * {@code hashtext} of its UTF-8 bytes (a null id hashes like the empty string). A bucket belongs to
 * the worker with the highest weight {@code md5("<bucket>:<worker>")} (rendezvous hashing), so
 * growing the worker count from N to N+1 moves only the buckets the new worker wins, about 1/(N+1).
 *
 * <p>{@link #bucketOf} matches the server on little-endian machines (x86-64, ARM64) with a UTF8
 * database: {@code hashtext} reads the bytes of the database's encoding in the machine's order. The
 * server computes every bucket a claim compares, so another encoding or a big-endian server only
 * makes this class's predictions differ, never the claims.
 */
public final class Partitioning {

  public static final int BUCKETS = 1024;

  private Partitioning() {}

  public static int bucketOf(String aggregateId) {
    byte[] bytes = (aggregateId == null ? "" : aggregateId).getBytes(StandardCharsets.UTF_8);
    return hashBytes(bytes) & (BUCKETS - 1);
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

  /**
   * PostgreSQL's {@code hash_bytes} (src/common/hashfn.c, Bob Jenkins' lookup3 as PostgreSQL
   * adapted it) on a little-endian machine: what {@code hashtext} returns for a deterministic
   * collation.
   */
  static int hashBytes(byte[] k) {
    int length = k.length;
    int a = 0x9e3779b9 + length + 3923095;
    int b = a;
    int c = a;
    int i = 0;
    for (; length - i >= 12; i += 12) {
      a += littleEndian32(k, i);
      b += littleEndian32(k, i + 4);
      c += littleEndian32(k, i + 8);
      // mix(a, b, c)
      a -= c;
      a ^= Integer.rotateLeft(c, 4);
      c += b;
      b -= a;
      b ^= Integer.rotateLeft(a, 6);
      a += c;
      c -= b;
      c ^= Integer.rotateLeft(b, 8);
      b += a;
      a -= c;
      a ^= Integer.rotateLeft(c, 16);
      c += b;
      b -= a;
      b ^= Integer.rotateLeft(a, 19);
      a += c;
      c -= b;
      c ^= Integer.rotateLeft(b, 4);
      b += a;
    }
    // The last 0..11 bytes, little-endian; the lowest byte of c stays free (lookup3's layout).
    int rest = length - i;
    if (rest > 8) {
      c += partialWord(k, i + 8, rest - 8) << 8;
    }
    if (rest > 4) {
      b += partialWord(k, i + 4, Math.min(rest - 4, 4));
    }
    if (rest > 0) {
      a += partialWord(k, i, Math.min(rest, 4));
    }
    // final(a, b, c)
    c ^= b;
    c -= Integer.rotateLeft(b, 14);
    a ^= c;
    a -= Integer.rotateLeft(c, 11);
    b ^= a;
    b -= Integer.rotateLeft(a, 25);
    c ^= b;
    c -= Integer.rotateLeft(b, 16);
    a ^= c;
    a -= Integer.rotateLeft(c, 4);
    b ^= a;
    b -= Integer.rotateLeft(a, 14);
    c ^= b;
    c -= Integer.rotateLeft(b, 24);
    return c;
  }

  private static int littleEndian32(byte[] k, int at) {
    return partialWord(k, at, 4);
  }

  /** {@code count} (1..4) bytes from {@code at} as a little-endian number. */
  private static int partialWord(byte[] k, int at, int count) {
    int word = 0;
    for (int j = count - 1; j >= 0; j--) {
      word = (word << 8) | (k[at + j] & 0xff);
    }
    return word;
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
