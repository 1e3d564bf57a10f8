package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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
 * @param horizonHeldSeconds how long the database's xmin horizon has been held back by its oldest
 *     holder (0: by nothing for long, or not visible to this role); while it is, vacuum removes no
 *     claimed message's old row version and claims slow down (docs/operations.md, "The xmin
 *     horizon")
 * @param horizonHolder what holds the horizon back the longest; null when nothing does or this role
 *     may not see it
 * @param statusReasons the checks that made the status other than healthy, each as {@code "check:
 *     verdict"} (e.g. {@code "xmin_horizon: critical"}); empty when healthy
 * @param blockedCount waiting messages of an ordered inbox's aggregates whose head is a dead letter
 *     or backing off: they wait for their head, not for a worker, and neither the age nor the
 *     pending check counts them (counted up to the critical pending threshold or 10,000, the
 *     larger)
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
    boolean blockedAggregatesExact,
    long horizonHeldSeconds,
    HorizonHolder horizonHolder,
    List<String> statusReasons,
    long blockedCount) {

  public InboxHealth {
    statusReasons = List.copyOf(statusReasons);
  }

  /**
   * A session, standby, replication slot or prepared transaction that holds the xmin horizon back
   * ({@code inbox.xmin_horizon}).
   *
   * @param kind {@code transaction}, {@code standby}, {@code replication_slot} or {@code
   *     prepared_transaction}
   * @param pid the backend's process id (a slot's active walsender; null for a prepared transaction
   *     or an inactive slot)
   * @param name the slot's name or the prepared transaction's gid; null for a session
   * @param role the session's or prepared transaction's role
   * @param application the session's {@code application_name}
   * @param state the session's state, e.g. {@code idle in transaction}
   * @param heldSince when the holder's transaction began (null when PostgreSQL does not say: a
   *     standby or a slot)
   * @param heldSeconds seconds since {@code heldSince} (null with it)
   * @param active false for an inactive replication slot (nothing will move its horizon) and a
   *     prepared transaction
   */
  public record HorizonHolder(
      String kind,
      Integer pid,
      String name,
      String role,
      String application,
      String state,
      Instant heldSince,
      Long heldSeconds,
      boolean active) {

    /**
     * One line for people, e.g. {@code transaction pid 4242 (report, alice, idle in transaction)
     * for 700 s} or {@code replication_slot standby_1 (inactive)}.
     */
    public String summary() {
      StringBuilder s = new StringBuilder(kind);
      if (pid != null) {
        s.append(" pid ").append(pid);
      }
      if (name != null) {
        s.append(' ').append(name);
      }
      List<String> about = new ArrayList<>();
      for (String part : new String[] {application, role, state}) {
        if (part != null && !part.isEmpty()) {
          about.add(part);
        }
      }
      if (!active && "replication_slot".equals(kind)) {
        about.add("inactive");
      }
      if (!about.isEmpty()) {
        s.append(" (").append(String.join(", ", about)).append(')');
      }
      if (heldSeconds != null) {
        s.append(" for ").append(heldSeconds).append(" s");
      }
      return s.toString();
    }
  }

  /** Without the xmin horizon: the shape of the releases before it, kept for their callers. */
  public InboxHealth(
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
    this(
        inbox,
        pendingCount,
        dlqCount,
        oldestPendingAgeSeconds,
        throughputPerMinute,
        status,
        blockedAggregates,
        worstPartitionLagSeconds,
        processingCount,
        pendingCountExact,
        dlqCountExact,
        blockedAggregatesExact,
        0,
        null,
        List.of(),
        0);
  }

  /** Health without the blocked messages' count (0). */
  public InboxHealth(
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
      boolean blockedAggregatesExact,
      long horizonHeldSeconds,
      HorizonHolder horizonHolder,
      List<String> statusReasons) {
    this(
        inbox,
        pendingCount,
        dlqCount,
        oldestPendingAgeSeconds,
        throughputPerMinute,
        status,
        blockedAggregates,
        worstPartitionLagSeconds,
        processingCount,
        pendingCountExact,
        dlqCountExact,
        blockedAggregatesExact,
        horizonHeldSeconds,
        horizonHolder,
        statusReasons,
        0);
  }

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
