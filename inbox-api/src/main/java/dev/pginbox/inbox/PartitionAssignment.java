package dev.pginbox.inbox;

/**
 * Which messages a worker claims, by the partition of their aggregate id ({@link Partitioning}).
 *
 * <ul>
 *   <li>{@link All}: every message;
 *   <li>{@link Static}: partition {@code id} of {@code count}, fixed;
 *   <li>{@link Automatic}: live workers share {@code partitions} partitions through leases with a
 *       heartbeat; a dead worker's partitions are taken over once its lease expires.
 * </ul>
 */
public sealed interface PartitionAssignment {

  record All() implements PartitionAssignment {}

  record Static(int id, int count) implements PartitionAssignment {
    public Static {
      if (count < 1 || id < 0 || id >= count) {
        throw new InvalidInboxArgumentException(
            "partition id must be in 0..count-1 and count >= 1, got " + id + " of " + count, null);
      }
    }
  }

  record Automatic(int partitions, java.time.Duration leaseDuration)
      implements PartitionAssignment {
    public static final int DEFAULT_PARTITIONS = 32;
    public static final java.time.Duration DEFAULT_LEASE = java.time.Duration.ofSeconds(10);

    public Automatic {
      if (partitions < 1 || partitions > Partitioning.BUCKETS) {
        throw new InvalidInboxArgumentException(
            "partitions must be in 1.." + Partitioning.BUCKETS, null);
      }
      if (leaseDuration == null || leaseDuration.isNegative() || leaseDuration.isZero()) {
        throw new InvalidInboxArgumentException("leaseDuration must be positive", null);
      }
    }
  }

  static PartitionAssignment all() {
    return new All();
  }

  static PartitionAssignment of(int id, int count) {
    return new Static(id, count);
  }

  static PartitionAssignment automatic() {
    return automatic(Automatic.DEFAULT_PARTITIONS);
  }

  /**
   * Automatic partitions with the default lease. At most {@code partitions} workers claim at a
   * time; the others stand by and take over the partitions of a worker that stops or dies. On a
   * database with few cores to spare, as many partitions as it can run batches side by side keep
   * the throughput from falling as workers are added (docs/consuming.md, "More workers than the
   * database has cores").
   */
  static PartitionAssignment automatic(int partitions) {
    return new Automatic(partitions, Automatic.DEFAULT_LEASE);
  }
}
