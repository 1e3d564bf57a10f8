package dev.pginbox.inbox.operations;

import java.time.Instant;

/**
 * Messages processed and attempts failed in one minute ({@code inbox.inbox_throughput}).
 *
 * @param failed failed attempts recorded in the minute (from the messages' failure histories)
 */
public record ThroughputPoint(Instant minute, long processed, long failed) {}
