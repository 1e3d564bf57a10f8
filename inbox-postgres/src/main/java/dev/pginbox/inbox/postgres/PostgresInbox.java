package dev.pginbox.inbox.postgres;

import static dev.pginbox.inbox.postgres.internal.JdbiCalls.inHandle;
import static dev.pginbox.inbox.postgres.internal.JdbiCalls.withHandle;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxNames;
import dev.pginbox.inbox.MarkFailedResult;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.EventTypeStats;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.InboxStatus;
import dev.pginbox.inbox.operations.OrderingGap;
import dev.pginbox.inbox.postgres.internal.InboxStatements;
import dev.pginbox.inbox.postgres.internal.MessageRows;
import dev.pginbox.inbox.postgres.internal.MessageWriter;
import dev.pginbox.inbox.postgres.internal.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;

/**
 * An inbox on PostgreSQL. Besides {@link Inbox}, it sends inside the caller's own transaction:
 * {@link #send(Handle, NewMessage)} and {@link #send(Connection, NewMessage)} (and their batch
 * forms) use the given handle or connection as they are and never commit, roll back or close it, so
 * the message is written if and only if the caller's transaction commits.
 */
public final class PostgresInbox implements Inbox {

  private final Jdbi jdbi;
  private final String name;
  private final boolean managed;
  private final MessageWriter writer;

  PostgresInbox(Jdbi jdbi, String name, boolean managed) {
    this.jdbi = jdbi;
    this.name = InboxNames.requireValid(name);
    this.managed = managed;
    // The name passed InboxNames (a-z, 0-9, _), and is quoted all the same.
    this.writer =
        new MessageWriter(
            "\"inbox\".\"" + name + "\"",
            "\"" + name + "_pkey\"",
            "\"inbox\".\"send_" + name + "\"");
  }

  @Override
  public String name() {
    return name;
  }

  /** False for an inbox over an application's own table ({@code enable_inbox_tracking}). */
  public boolean managed() {
    return managed;
  }

  @Override
  public boolean send(NewMessage message) {
    return withHandle(
        jdbi, "send to inbox " + name, name, message.eventId(), h -> send(h, message));
  }

  @Override
  public int sendAll(List<NewMessage> messages) {
    return withHandle(jdbi, "send to inbox " + name, name, null, h -> sendAll(h, messages));
  }

  /** Sends in the handle's current transaction (or autocommit); does not commit. */
  public boolean send(Handle handle, NewMessage message) {
    return send(handle.getConnection(), message);
  }

  /**
   * Sends in the handle's current transaction (or autocommit) as one statement; does not commit.
   */
  public int sendAll(Handle handle, List<NewMessage> messages) {
    return sendAll(handle.getConnection(), messages);
  }

  /** Sends on the connection in its current transaction; does not commit. */
  public boolean send(Connection connection, NewMessage message) {
    Objects.requireNonNull(message, "message");
    requireManaged();
    try {
      return writer.send(connection, message);
    } catch (SQLException e) {
      throw SqlErrors.translate(e, "send to inbox " + name, name, message.eventId());
    }
  }

  /** Sends on the connection in its current transaction as one statement; does not commit. */
  public int sendAll(Connection connection, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    requireManaged();
    try {
      return writer.sendAll(connection, messages);
    } catch (SQLException e) {
      throw SqlErrors.translate(e, "send to inbox " + name, name, null);
    }
  }

  @Override
  public InboxHealth health() {
    return InboxStatements.health(text("health", "read the health of inbox " + name));
  }

  @Override
  public InboxStatus status() {
    return InboxStatements.status(text("status", "read the status of inbox " + name));
  }

  @Override
  public List<InboxMessage> pending(int limit) {
    return messages("pending", limit);
  }

  @Override
  public List<InboxMessage> deadLetters(int limit) {
    return messages("dead", limit);
  }

  @Override
  public List<EventTypeStats> stats() {
    return withHandle(
        jdbi,
        "read the stats of inbox " + name,
        name,
        null,
        h ->
            h.createQuery(InboxStatements.sql("stats"))
                .define("stats_view", "\"" + name + "_stats\"")
                .map(
                    (rs, ctx) ->
                        new EventTypeStats(
                            rs.getString(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getLong(4),
                            rs.getLong(5)))
                .list());
  }

  @Override
  public boolean markProcessed(String eventId) {
    return withHandle(jdbi, "mark processed", name, eventId, h -> markProcessed(h, eventId));
  }

  /** {@code inbox.mark_processed} in the handle's current transaction. */
  public boolean markProcessed(Handle handle, String eventId) {
    return inHandle(
        handle,
        "mark processed",
        name,
        eventId,
        h ->
            h.createQuery(InboxStatements.sql("mark_processed"))
                .bind("name", name)
                .bind("eventId", eventId)
                .mapTo(Boolean.class)
                .one());
  }

  @Override
  public MarkFailedResult markFailed(String eventId, String error) {
    return withHandle(jdbi, "mark failed", name, eventId, h -> markFailed(h, eventId, error));
  }

  /** {@code inbox.mark_failed} in the handle's current transaction. */
  public MarkFailedResult markFailed(Handle handle, String eventId, String error) {
    String result =
        inHandle(
            handle,
            "mark failed",
            name,
            eventId,
            h ->
                h.createQuery(InboxStatements.sql("mark_failed"))
                    .bind("name", name)
                    .bind("eventId", eventId)
                    .bind("error", error)
                    .mapTo(String.class)
                    .one());
    if (result == null) {
      return MarkFailedResult.UNCHANGED;
    }
    return "dead".equals(result) ? MarkFailedResult.DEAD : MarkFailedResult.RETRY;
  }

  @Override
  public List<OrderingGap> orderingGaps() {
    return query(
        "ordering_gaps",
        "read the ordering gaps of inbox " + name,
        q ->
            q.map(
                    (rs, ctx) ->
                        new OrderingGap(
                            rs.getString("aggregate_id"),
                            OrderingGap.Issue.fromSql(rs.getString("issue")),
                            rs.getString("event_id"),
                            rs.getString("sequence"),
                            rs.getString("previous_sequence"),
                            rs.getString("detail")))
                .list());
  }

  @Override
  public boolean isMyPartition(String aggregateId, int workerId, int totalWorkers) {
    return query(
        "is_my_partition",
        "check the partition of inbox " + name,
        q ->
            q.bind("aggregateId", aggregateId)
                .bind("workerId", workerId)
                .bind("totalWorkers", totalWorkers)
                .mapTo(Boolean.class)
                .one());
  }

  @Override
  public InboxOperations operations() {
    return new PostgresInboxOperations(jdbi, name, null);
  }

  private List<InboxMessage> messages(String state, int limit) {
    return query(
        "messages",
        "list " + state + " messages of inbox " + name,
        q -> q.bind("state", state).bind("limit", limit).map(MessageRows.MAPPER).list());
  }

  private String text(String statement, String action) {
    return query(statement, action, q -> q.mapTo(String.class).one());
  }

  /** Runs one of the inbox's named statements, with this inbox's name bound, on its own handle. */
  private <T> T query(String statement, String action, Function<Query, T> result) {
    return withHandle(
        jdbi,
        action,
        name,
        null,
        h -> result.apply(h.createQuery(InboxStatements.sql(statement)).bind("name", name)));
  }

  private void requireManaged() {
    if (!managed) {
      throw new InboxException(
          "inbox "
              + name
              + " tracks an application table: write to that table, "
              + "not through send",
          name);
    }
  }

  @Override
  public String toString() {
    return "PostgresInbox[" + name + (managed ? "" : ", tracked") + "]";
  }
}
