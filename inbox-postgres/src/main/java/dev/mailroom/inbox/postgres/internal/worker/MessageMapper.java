package dev.mailroom.inbox.postgres.internal.worker;

import dev.mailroom.inbox.InboxMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/** Reads the rows claim_&lt;name&gt; returns (the inbox table's columns) into messages. */
final class MessageMapper {

  private MessageMapper() {}

  static List<InboxMessage> readAll(ResultSet rs) throws SQLException {
    List<InboxMessage> messages = new ArrayList<>();
    if (!rs.next()) {
      return messages;
    }
    int eventId = rs.findColumn("event_id");
    int eventType = rs.findColumn("event_type");
    int source = rs.findColumn("source");
    int aggregateId = rs.findColumn("aggregate_id");
    int payload = rs.findColumn("payload");
    int receivedAt = rs.findColumn("received_at");
    int processedAt = rs.findColumn("processed_at");
    int error = rs.findColumn("error");
    int retryCount = rs.findColumn("retry_count");
    int traceId = rs.findColumn("trace_id");
    int seq = rs.findColumn("seq");
    int priority = rs.findColumn("priority");
    int bucket = rs.findColumn("bucket");
    do {
      messages.add(new InboxMessage(rs.getString(eventId), rs.getString(eventType), rs.getString(source),
          rs.getString(aggregateId), rs.getString(payload), instant(rs, receivedAt), instant(rs, processedAt),
          rs.getString(error), rs.getInt(retryCount), rs.getString(traceId), rs.getLong(seq), rs.getInt(priority),
          rs.getInt(bucket)));
    } while (rs.next());
    return messages;
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }
}
