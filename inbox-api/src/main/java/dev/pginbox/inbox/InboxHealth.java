package dev.pginbox.inbox;

/**
 * The result of {@code inbox.inbox_health(p_inbox)}.
 *
 * @param blockedAggregates aggregates of an ordered inbox whose head cannot be claimed now, counted
 *     among the first 10,000 aggregates (0 without ordering)
 * @param worstPartitionLagSeconds age of the oldest message that could be claimed now, in the
 *     partition where it is oldest (the whole inbox when not partitioned); backing-off messages are
 *     not lag
 * @param processingCount messages held by running transactions (being processed) among the first
 *     1,000 waiting in claim order
 */
public record InboxHealth(
    String inbox,
    long pendingCount,
    long dlqCount,
    long oldestPendingAgeSeconds,
    long throughputPerMinute,
    HealthStatus status,
    long blockedAggregates,
    long worstPartitionLagSeconds,
    long processingCount) {

  /** Without the operator numbers (0): the shape of the first releases, kept for their callers. */
  public InboxHealth(
      String inbox,
      long pendingCount,
      long dlqCount,
      long oldestPendingAgeSeconds,
      long throughputPerMinute,
      HealthStatus status) {
    this(
        inbox,
        pendingCount,
        dlqCount,
        oldestPendingAgeSeconds,
        throughputPerMinute,
        status,
        0,
        0,
        0);
  }
}
