package dev.pginbox.inbox.operations;

import java.time.Instant;

/** Messages processed in one minute ({@code inbox.inbox_throughput}). */
public record ThroughputPoint(Instant minute, long processed) {}
