package dev.pginbox.inbox.operations;

/**
 * The result of {@code inbox.inbox_status}: the full JSON document plus its most used numbers.
 *
 * @param json the JSON text as returned by SQL (configuration, ordering, priority, errors, retry
 *     distribution, oldest pending message, ...)
 * @param retryingCount waiting messages that failed at least once
 */
public record InboxStatus(
    String inbox,
    HealthStatus status,
    long pendingCount,
    long retryingCount,
    long dlqCount,
    long processedLastMinute,
    long processedLast5Minutes,
    long processedLastHour,
    long oldestPendingAgeSeconds,
    String json) {}
