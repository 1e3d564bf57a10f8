package dev.pginbox.inbox.postgres.internal.worker.connection;

import java.util.Locale;

/**
 * The worker's statements, each a file next to {@link WorkerConnection} named as its constant in
 * lower case ({@code CLAIM}: {@code WorkerConnection/claim.sql}), read by {@code SqlFiles} like
 * every statement of the project. Their values are named parameters ({@code :inbox}), bound by name
 * through {@link NamedStatement}.
 */
public enum WorkerSql {
  ANNOUNCE,
  AWAIT_HELD_HEAD,
  BLOCKS_OTHERS,
  CLAIM,
  /** {@link #CLAIM} with the lease guard of automatic partitions. */
  CLAIM_GUARDED,
  CLAIM_UNREADABLE,
  /** The claim of one shard of a distributed inbox, on the shard's node. */
  CLAIM_SHARD,
  COUNT_WAITING,
  /** Several statements sent as one unit, ending in COMMIT: prepared for one use, not kept. */
  END_TIMED_OUT_BATCH,
  /** {@link #END_TIMED_OUT_BATCH} for a shard's batch, on the shard's node. */
  END_TIMED_OUT_SHARD,
  /** The failed attempts of a shard's claim, on the shard's node. */
  FAIL_IN_SHARD,
  HEARTBEAT,
  INBOX_CONFIG,
  INBOX_DISTRIBUTED,
  INBOX_ORDERED,
  INBOX_SHARDS,
  LEASE_CHANNEL,
  LEAVE,
  PEERS,
  PENDING_GAUGES,
  PING,
  PURGE,
  RECORD_FAILURES,
  RELEASE_CLAIMED,
  SHARD_SETTINGS,
  STOPPED,
  WAKE_LISTENER;

  /** The file's name without {@code .sql}. */
  String fileName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
