package dev.pginbox.inbox.operations;

/** One row of the {@code <name>_stats} view. {@code eventType} may be null. */
public record EventTypeStats(
    String eventType, long pending, long processed, long dead, long total) {}
