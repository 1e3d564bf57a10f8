package dev.pginbox.inbox.postgres.internal.worker.membership;

import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.Partitioning;
import dev.pginbox.inbox.postgres.internal.worker.connection.NamedStatement;
import java.sql.SQLException;

/**
 * Which buckets a worker may claim from. All: every bucket (NULL). Static: the buckets of its
 * partition, fixed. Automatic: the buckets of the partitions it leases, re-checked by {@code
 * inbox.lease_guard_buckets} in every claim statement (claim_guarded.sql), before the claim. All,
 * on an ordered inbox, also keeps the buckets the worker prefers among the live workers sharing
 * every head ({@link #peers}): claims ask for those first (see BatchRunner).
 */
public final class ClaimScope {

  /**
   * What one claim binds: the partitions the lease guard must lock (null: no guard) and the buckets
   * to claim from (null: every bucket; empty: nothing), computed together from one heartbeat.
   */
  public record Claimable(int[] partitions, int[] buckets) {
    public boolean nothing() {
      return buckets != null && buckets.length == 0;
    }
  }

  private static final Claimable NOTHING = new Claimable(new int[0], new int[0]);

  private final String inbox;
  private final String workerId;
  private final int[][] bucketsByPartition;

  /** All and static: fixed; automatic: the partitions the last heartbeat returned. */
  private volatile Claimable claimable;

  /** The inbox is ordered (learned at every connection); spreading only pays there. */
  private volatile boolean ordered;

  /**
   * All, on an ordered inbox with other live workers sharing every head: the buckets of partition
   * rank of peers ({@code inbox.worker_peers}) this worker prefers; null: no preference.
   */
  private volatile Claimable preferred;

  /** The last rank and number of peers given; only the maintenance thread touches it. */
  private Place place;

  private record Place(Integer rank, int peers) {}

  public ClaimScope(PartitionAssignment assignment, String inbox, String workerId) {
    this.inbox = inbox;
    this.workerId = workerId;
    if (assignment instanceof PartitionAssignment.Static s) {
      claimable = new Claimable(null, allAsNull(Partitioning.bucketsOf(s.id(), s.count())));
      bucketsByPartition = null;
    } else if (assignment instanceof PartitionAssignment.Automatic a) {
      claimable = NOTHING;
      bucketsByPartition = bucketsByPartition(a.partitions());
    } else {
      claimable = new Claimable(null, null);
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

  /** Whether the inbox is ordered, learned at every connection. */
  public void ordered(boolean ordered) {
    this.ordered = ordered;
  }

  /**
   * All mode: this worker's rank among the live workers sharing every head of the inbox, and their
   * number ({@code inbox.worker_peers}); with more than one, the worker prefers the buckets of
   * partition rank of peers. A rank of null (not among them): no preference. Returns whether rank
   * or number differ from the last ones given.
   */
  public boolean peers(Integer rank, int peers) {
    Place now = new Place(rank, peers);
    if (now.equals(place)) {
      return false;
    }
    place = now;
    preferred =
        rank == null || peers < 2 || rank >= peers
            ? null
            : new Claimable(null, Partitioning.bucketsOf(rank, peers));
    return true;
  }

  /**
   * What a claim binds when the worker may prefer its share of the buckets: the preferred buckets
   * on an ordered inbox with live peers, otherwise {@link #claimable()}.
   */
  public Claimable preferredOrClaimable() {
    Claimable p = preferred;
    return p != null && ordered ? p : claimable;
  }

  public boolean automatic() {
    return bucketsByPartition != null;
  }

  /** Automatic mode: the partitions a heartbeat returned. */
  public void held(int[] partitions) {
    int[] copy = partitions.clone();
    claimable = copy.length == 0 ? NOTHING : new Claimable(copy, allAsNull(bucketsOf(copy)));
  }

  public int[] held() {
    int[] partitions = claimable.partitions();
    return partitions == null ? new int[0] : partitions.clone();
  }

  /**
   * What the next claim binds ({@link #bind}); a count of waiting messages uses its buckets without
   * a guard (a count decides nothing).
   */
  public Claimable claimable() {
    return claimable;
  }

  /**
   * Binds the arguments of {@code inbox.lease_guard_buckets} in a claim statement ({@code :inbox},
   * {@code :workerId}, {@code :partitions}, {@code :partitionCount}, {@code :buckets}): the guard
   * in the automatic mode, {@code claimable}'s buckets as they are otherwise.
   */
  public void bind(NamedStatement statement, Claimable claimable) throws SQLException {
    statement
        .setString("inbox", inbox)
        .setString("workerId", workerId)
        .setIntArray("partitions", claimable.partitions())
        .setInt("partitionCount", bucketsByPartition == null ? 1 : bucketsByPartition.length)
        .setIntArray("buckets", claimable.buckets());
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
}
