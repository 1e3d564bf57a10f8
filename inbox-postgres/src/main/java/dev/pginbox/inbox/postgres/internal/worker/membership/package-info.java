/**
 * Which buckets this worker may claim from: {@link
 * dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope} (all, a static partition, the
 * leased partitions, the preferred share among live peers), {@link
 * dev.pginbox.inbox.postgres.internal.worker.membership.LeaseKeeper} (the automatic mode's
 * heartbeat, on the leases thread) and {@link
 * dev.pginbox.inbox.postgres.internal.worker.membership.Announcement} (what the worker tells the
 * registry). On a distributed inbox: {@link
 * dev.pginbox.inbox.postgres.internal.worker.membership.ShardMap} (the shards held, one lease each,
 * and their nodes), {@link dev.pginbox.inbox.postgres.internal.worker.membership.Shard} and {@link
 * dev.pginbox.inbox.postgres.internal.worker.membership.ShardSettings}.
 */
package dev.pginbox.inbox.postgres.internal.worker.membership;
