package dev.pginbox.inbox.citus;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of one claim transaction on a shard's node: {@code inbox.claim_shard} and {@code
 * inbox.fail_in_shard}, with the inbox settings they need, read once from the coordinator.
 */
final class ShardClaim {

  private ShardClaim() {}

  /** What a shard's claim and failures need of the inbox's catalog (on the coordinator). */
  record Settings(
      int shards, int maxRetries, String backoffBase, String backoffMax, String sequenceColumn) {

    static Settings read(Connection coordinator, String inbox) throws SQLException {
      try (PreparedStatement s =
          coordinator.prepareStatement(
              "SELECT (SELECT count(*) FROM inbox.inbox_shards(c.inbox_name))::integer,"
                  + " c.max_retries, c.backoff_base::text, c.backoff_max::text, o.sequence_column"
                  + " FROM inbox.inbox_config c"
                  + " LEFT JOIN inbox.inbox_ordering_config o USING (inbox_name)"
                  + " WHERE c.inbox_name = ?")) {
        s.setString(1, inbox);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            throw new SQLException("inbox " + inbox + " does not exist", "42704");
          }
          return new Settings(
              rs.getInt(1), rs.getInt(2), rs.getString(3), rs.getString(4), rs.getString(5));
        }
      }
    }
  }

  /** Claims up to {@code limit} messages of the shard, in the connection's open transaction. */
  static List<InboxMessage> claim(Connection node, String shard, int limit, Settings settings)
      throws SQLException {
    List<InboxMessage> batch = new ArrayList<>();
    try (PreparedStatement s =
        node.prepareStatement("SELECT * FROM inbox.claim_shard(?, ?, ?, ?)")) {
      s.setString(1, shard);
      s.setInt(2, limit);
      s.setInt(3, settings.maxRetries());
      s.setString(4, settings.sequenceColumn());
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          batch.add(
              new InboxMessage(
                  rs.getString("event_id"),
                  rs.getString("event_type"),
                  rs.getString("source"),
                  rs.getString("aggregate_id"),
                  rs.getString("payload"),
                  rs.getTimestamp("received_at").toInstant(),
                  null,
                  null,
                  rs.getInt("retry_count"),
                  rs.getString("trace_id"),
                  rs.getLong("seq"),
                  rs.getInt("priority"),
                  rs.getInt("bucket")));
        }
      }
    }
    return batch;
  }

  /** Records a failed attempt of a claimed message, in the claim's transaction. */
  static void recordFailure(
      Connection node, String shard, InboxMessage message, Outcome outcome, Settings settings)
      throws SQLException {
    try (PreparedStatement s =
        node.prepareStatement(
            "SELECT inbox.fail_in_shard(?, ?, ?, ?, ?::interval, ?, ?, ?::interval, ?::interval)")) {
      s.setString(1, shard);
      s.setString(2, message.aggregateId());
      s.setString(3, message.eventId());
      s.setString(4, outcome.reason());
      s.setString(
          5,
          outcome.retryAfter() == null ? null : outcome.retryAfter().toMillis() + " milliseconds");
      s.setBoolean(6, outcome.kind() == Outcome.Kind.DEAD);
      s.setInt(7, settings.maxRetries());
      s.setString(8, settings.backoffBase());
      s.setString(9, settings.backoffMax());
      s.execute();
    }
  }
}
