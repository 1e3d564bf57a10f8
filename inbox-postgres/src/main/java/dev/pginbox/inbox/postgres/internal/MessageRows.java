package dev.pginbox.inbox.postgres.internal;

import dev.pginbox.inbox.InboxMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Rows of an inbox table (what {@code claim_<name>} and the message listings return) read into
 * messages, with the column positions resolved once per result set: the worker reads every claim
 * through this, so name lookups per row would cost on the hot path.
 */
public final class MessageRows {

  /** For Jdbi: specialised to each result set's column positions. */
  public static final RowMapper<InboxMessage> MAPPER =
      new RowMapper<>() {
        @Override
        public InboxMessage map(ResultSet rs, StatementContext ctx) throws SQLException {
          return new MessageRows(rs).read(rs);
        }

        @Override
        public RowMapper<InboxMessage> specialize(ResultSet rs, StatementContext ctx)
            throws SQLException {
          MessageRows columns = new MessageRows(rs);
          return (row, context) -> columns.read(row);
        }
      };

  private final int eventId;
  private final int eventType;
  private final int source;
  private final int aggregateId;
  private final int payload;
  private final int receivedAt;
  private final int processedAt;
  private final int error;
  private final int retryCount;
  private final int traceId;
  private final int seq;
  private final int priority;
  private final int bucket;

  private MessageRows(ResultSet rs) throws SQLException {
    eventId = rs.findColumn("event_id");
    eventType = rs.findColumn("event_type");
    source = rs.findColumn("source");
    aggregateId = rs.findColumn("aggregate_id");
    payload = rs.findColumn("payload");
    receivedAt = rs.findColumn("received_at");
    processedAt = rs.findColumn("processed_at");
    error = rs.findColumn("error");
    retryCount = rs.findColumn("retry_count");
    traceId = rs.findColumn("trace_id");
    seq = rs.findColumn("seq");
    priority = rs.findColumn("priority");
    bucket = rs.findColumn("bucket");
  }

  /** Every remaining row of {@code rs}. */
  public static List<InboxMessage> readAll(ResultSet rs) throws SQLException {
    List<InboxMessage> messages = new ArrayList<>();
    if (!rs.next()) {
      return messages;
    }
    MessageRows columns = new MessageRows(rs);
    do {
      messages.add(columns.read(rs));
    } while (rs.next());
    return messages;
  }

  private InboxMessage read(ResultSet rs) throws SQLException {
    return new InboxMessage(
        rs.getString(eventId),
        rs.getString(eventType),
        rs.getString(source),
        rs.getString(aggregateId),
        rs.getString(payload),
        instant(rs, receivedAt),
        instant(rs, processedAt),
        rs.getString(error),
        rs.getInt(retryCount),
        rs.getString(traceId),
        rs.getLong(seq),
        rs.getInt(priority),
        rs.getInt(bucket));
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }
}
