package dev.pginbox.inbox.postgres.internal;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The produce path: one INSERT per call, idempotent by the inbox's key (the event id, or the
 * aggregate and event id once the inbox is distributed on Citus). A batch is one statement over
 * bound arrays ({@code unnest}), so 1,000 messages cost one round trip and one plan. Runs on the
 * caller's connection and never commits.
 *
 * <p>The batch calls the inbox's send function ({@code inbox.send_<name>}): one INSERT in event id
 * order (two concurrent batches that share ids in different orders would otherwise each wait for
 * the other's uncommitted key and deadlock), whose arrival order ({@code seq}) still follows the
 * caller's list, so an aggregate's events sent in one call are handed out in the order given.
 * Setting {@code seq} is the owner's right: the function runs as the owner, and producers hold
 * {@code EXECUTE} on it rather than {@code INSERT} on {@code seq}.
 */
public final class MessageWriter {

  private final String insertOne;
  private final String insertBatch;

  /**
   * @param quotedTable the validated, quoted table ({@code "inbox"."orders"})
   * @param quotedKey its validated, quoted primary key constraint ({@code "orders_pkey"})
   * @param quotedSendFunction its validated, quoted send function ({@code "inbox"."send_orders"})
   */
  public MessageWriter(String quotedTable, String quotedKey, String quotedSendFunction) {
    this.insertOne =
        SqlFiles.get(
            MessageWriter.class, "insert_one", Map.of("table", quotedTable, "key", quotedKey));
    this.insertBatch =
        SqlFiles.get(MessageWriter.class, "insert_batch", Map.of("function", quotedSendFunction));
  }

  public boolean send(Connection connection, NewMessage m) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(insertOne)) {
      ps.setString(1, m.eventId());
      ps.setString(2, m.eventType());
      ps.setString(3, m.source());
      ps.setString(4, m.aggregateId());
      ps.setString(5, m.payload());
      ps.setString(6, m.traceId());
      return ps.executeUpdate() == 1;
    }
  }

  public int sendAll(Connection connection, List<NewMessage> messages) throws SQLException {
    if (messages.isEmpty()) {
      return 0;
    }
    int n = messages.size();
    String[] ids = new String[n];
    String[] types = new String[n];
    String[] sources = new String[n];
    String[] aggregates = new String[n];
    String[] payloads = new String[n];
    String[] traces = new String[n];
    for (int i = 0; i < n; i++) {
      NewMessage m = messages.get(i);
      ids[i] = m.eventId();
      types[i] = m.eventType();
      sources[i] = m.source();
      aggregates[i] = m.aggregateId();
      payloads[i] = m.payload();
      traces[i] = m.traceId();
    }
    try (PreparedStatement ps = connection.prepareStatement(insertBatch)) {
      // A String[] given to setObject travels in the binary array format (each element's UTF-8
      // bytes with their length): createArrayOf built the quoted, escaped text form instead,
      // which cost the client ~3 us and the server an array parse per message.
      String[][] columns = {ids, types, sources, aggregates, payloads, traces};
      for (int i = 0; i < columns.length; i++) {
        ps.setObject(i + 1, columns[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
