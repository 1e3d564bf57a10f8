package dev.pginbox.inbox.postgres.internal.worker.membership;

import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What the claims and failures of a distributed inbox's shards need of its catalog, which is on the
 * coordinator: the number of shards (the partitions of the leases), the retry settings {@code
 * inbox.fail_in_shard} applies, and the ordering column {@code inbox.claim_shard} keeps (null:
 * unordered). Read once per connection to the coordinator.
 */
public record ShardSettings(
    int shards, int maxRetries, String backoffBase, String backoffMax, String sequenceColumn) {

  public static ShardSettings read(WorkerConnection coordinator, String inbox) throws SQLException {
    try (ResultSet rs =
        coordinator.statement(WorkerSql.SHARD_SETTINGS).setString("inbox", inbox).executeQuery()) {
      if (!rs.next()) {
        throw new InboxNotFoundException("inbox " + inbox + " does not exist", inbox, null);
      }
      return new ShardSettings(
          rs.getInt("shards"),
          rs.getInt("max_retries"),
          rs.getString("backoff_base"),
          rs.getString("backoff_max"),
          rs.getString("sequence_column"));
    }
  }
}
