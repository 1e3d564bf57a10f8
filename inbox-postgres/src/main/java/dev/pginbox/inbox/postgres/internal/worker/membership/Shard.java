package dev.pginbox.inbox.postgres.internal.worker.membership;

/**
 * One shard of a distributed inbox as {@code inbox.inbox_shards} lists it: the partition of the
 * leases that stands for it (its rank in hash order), the shard's table on its node, and the node.
 */
public record Shard(int partition, String table, String host, int port) {

  /** The node as {@code host:port}, the key of its connections. */
  public String node() {
    return host + ":" + port;
  }
}
