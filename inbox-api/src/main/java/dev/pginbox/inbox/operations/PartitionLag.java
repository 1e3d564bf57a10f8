package dev.pginbox.inbox.operations;

import java.time.Instant;

/**
 * The backlog of one partition ({@code inbox.inbox_partition_lag}).
 *
 * @param partition the partition, or null when the inbox's workers do not partition it
 * @param waiting messages that could be claimed now
 * @param backingOff messages waiting for their next attempt after a failure (not lag)
 * @param countsExact false when the counts are scaled from the first 100,000 pending messages
 * @param oldestEligibleAgeSeconds age of the oldest message that could be claimed now, those behind
 *     a blocked head passed over; 0 if none
 * @param owner the worker holding the partition's lease, or the static worker(s) announcing it
 * @param leaseExpiresAt the lease's expiry in automatic mode; else null
 * @param behindBlocked an ordered inbox's messages that wait behind their aggregate's head, which
 *     is a dead letter or backing off (not lag: no worker can take them; not in {@code waiting})
 */
public record PartitionLag(
    Integer partition,
    long waiting,
    long backingOff,
    boolean countsExact,
    long oldestEligibleAgeSeconds,
    String owner,
    Instant leaseExpiresAt,
    long behindBlocked) {}
