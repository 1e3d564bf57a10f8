package dev.pginbox.inbox;

/** The result of {@code inbox.inbox_health(p_inbox)}. */
public record InboxHealth(
    String inbox,
    long pendingCount,
    long dlqCount,
    long oldestPendingAgeSeconds,
    long throughputPerMinute,
    HealthStatus status) {}
