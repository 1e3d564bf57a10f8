package dev.pginbox.inbox;

/**
 * The result of {@code inbox.inbox_health(p_inbox)}.
 *
 * <p>The counts cost a bounded amount whatever the backlog, so beyond the thresholds they are
 * estimates: {@code pendingCount} is exact up to the critical threshold (unless the planner expects
 * more than twice as many) and {@code dlqCount} up to the larger of the degraded threshold and
 * 10,000; beyond, each is the planner's estimate, never less than where counting stopped, and its
 * {@code *Exact} flag is false. Show such a count as approximate ("~").
 *
 * @param blockedAggregates aggregates of an ordered inbox whose head cannot be claimed now, counted
 *     among the first 10,000 aggregates (0 without ordering)
 * @param worstPartitionLagSeconds age of the oldest message that could be claimed now, in the
 *     partition where it is oldest (the whole inbox when not partitioned); backing-off messages are
 *     not lag
 * @param processingCount messages held by running transactions (being processed) among the first
 *     1,000 waiting in claim order
 * @param pendingCountExact whether {@code pendingCount} was counted (false: an estimate)
 * @param dlqCountExact whether {@code dlqCount} was counted (false: an estimate)
 * @param blockedAggregatesExact whether every aggregate was looked at (false: {@code
 *     blockedAggregates} is a lower bound, "≥")
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
    long processingCount,
    boolean pendingCountExact,
    boolean dlqCountExact,
    boolean blockedAggregatesExact) {

  /**
   * Without the operator numbers (0) and with exact counts: the shape of the first releases, kept
   * for their callers.
   */
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
        0,
        true,
        true,
        true);
  }
}
