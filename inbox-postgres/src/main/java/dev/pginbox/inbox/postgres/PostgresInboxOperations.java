package dev.pginbox.inbox.postgres;

import static dev.pginbox.inbox.postgres.internal.JdbiCalls.withHandle;

import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.operations.BlockedAggregate;
import dev.pginbox.inbox.operations.DeadLetter;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.DlqGroup;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.MessageDetail;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.operations.PartitionLag;
import dev.pginbox.inbox.operations.PurgeResult;
import dev.pginbox.inbox.operations.ThroughputPoint;
import dev.pginbox.inbox.operations.VacuumState;
import dev.pginbox.inbox.operations.WorkerInfo;
import dev.pginbox.inbox.postgres.internal.InboxStatements;
import dev.pginbox.inbox.postgres.internal.OperatorRows;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;

/**
 * The operator views and audited actions of one inbox, each through a statement file under {@code
 * PostgresInboxOperations/} that calls one function of the SQL API.
 */
final class PostgresInboxOperations implements InboxOperations {

  private final Jdbi jdbi;
  private final String name;
  private final String actor;

  PostgresInboxOperations(Jdbi jdbi, String name, String actor) {
    this.jdbi = jdbi;
    this.name = name;
    this.actor = actor;
  }

  @Override
  public InboxOperations asActor(String actor) {
    if (actor != null && (actor.isBlank() || actor.length() > 200)) {
      throw new InvalidInboxArgumentException("actor must be 1 to 200 characters", name);
    }
    return new PostgresInboxOperations(jdbi, name, actor);
  }

  @Override
  public List<BlockedAggregate> blockedAggregates(int limit) {
    return rows(
        "blocked",
        "read the blocked aggregates",
        q -> q.bind("limit", limit(limit)),
        OperatorRows::blockedAggregate);
  }

  @Override
  public List<PartitionLag> partitionLag() {
    return rows("lag", "read the partition lag", q -> q, OperatorRows::partitionLag);
  }

  @Override
  public List<WorkerInfo> workers() {
    return rows("workers", "read the workers", q -> q, OperatorRows::worker);
  }

  @Override
  public List<DlqGroup> dlqGroups(int limit) {
    return rows(
        "dlq_groups",
        "read the DLQ groups",
        q -> q.bind("limit", limit(limit)),
        OperatorRows::dlqGroup);
  }

  @Override
  public List<DeadLetter> deadLetterPage(
      DeadLetterSelection selection, int limit, Instant afterReceivedAt, String afterEventId) {
    if (selection != null && selection.byIds()) {
      throw new InvalidInboxArgumentException(
          "a dead-letter page selects by event type or group, not by ids", name);
    }
    return rows(
        "dead_letters",
        "list dead letters",
        q ->
            q.bind("eventType", selection == null ? null : selection.eventType())
                .bind("errorGroup", selection == null ? null : selection.errorGroup())
                .bind("limit", limit(limit))
                .bind("afterReceivedAt", OperatorRows.bindableTime(afterReceivedAt))
                .bind("afterEventId", afterEventId),
        OperatorRows::deadLetter);
  }

  @Override
  public Optional<MessageDetail> message(String eventId) {
    Objects.requireNonNull(eventId, "eventId");
    return rows("message", "read a message", q -> q.bind("eventId", eventId), OperatorRows::message)
        .stream()
        .findFirst();
  }

  @Override
  public List<MessageDetail> findMessages(
      String eventId, String aggregateId, String payloadMatch, int limit) {
    return rows(
        "find",
        "find messages",
        q ->
            q.bind("eventId", eventId)
                .bind("aggregateId", aggregateId)
                .bind("payloadMatch", payloadMatch)
                .bind("limit", limit(limit)),
        OperatorRows::message);
  }

  @Override
  public List<ThroughputPoint> throughput(int minutes) {
    return rows(
        "throughput",
        "read the throughput",
        q -> q.bind("minutes", minutes),
        OperatorRows::throughput);
  }

  @Override
  public VacuumState vacuum() {
    return rows("vacuum", "read the vacuum state", q -> q, OperatorRows::vacuum).get(0);
  }

  @Override
  public long countDeadLetters(DeadLetterSelection selection) {
    return withHandle(
        jdbi,
        "count dead letters of inbox " + name,
        name,
        null,
        h -> select(h.createQuery(sql("count_dead")), selection).mapTo(Long.class).one());
  }

  @Override
  public int replay(DeadLetterSelection selection) {
    Objects.requireNonNull(selection, "selection");
    String statement =
        selection.byIds()
            ? "replay_ids"
            : selection.errorGroup() == null ? "replay_type" : "replay_group";
    return withHandle(
        jdbi,
        "replay dead letters of inbox " + name,
        name,
        null,
        h -> select(h.createQuery(sql(statement)), selection).mapTo(Integer.class).one());
  }

  @Override
  public int discard(DeadLetterSelection selection) {
    Objects.requireNonNull(selection, "selection");
    return withHandle(
        jdbi,
        "discard dead letters of inbox " + name,
        name,
        null,
        h -> select(h.createQuery(sql("discard")), selection).mapTo(Integer.class).one());
  }

  @Override
  public PurgeResult purge(int batchSize) {
    return InboxStatements.purge(
        withHandle(
            jdbi,
            "purge inbox " + name,
            name,
            null,
            h ->
                h.createQuery(sql("purge"))
                    .bind("name", name)
                    .bind("actor", actor)
                    .bind("batchSize", batchSize)
                    .mapTo(String.class)
                    .one()));
  }

  @Override
  public List<OperatorLogEntry> auditLog(int limit, Long beforeId) {
    return auditLog(jdbi, name, limit, beforeId);
  }

  @Override
  public boolean pause() {
    return action("pause", "pause inbox " + name, q -> q, Boolean.class);
  }

  @Override
  public boolean resume() {
    return action("resume", "resume inbox " + name, q -> q, Boolean.class);
  }

  @Override
  public Instant pausedSince() {
    return rows(
            "paused_since",
            "read the pause",
            q -> q,
            rs -> rs.getObject(1, OffsetDateTime.class).toInstant())
        .stream()
        .findFirst()
        .orElse(null);
  }

  @Override
  public int retryNow(List<String> eventIds) {
    Objects.requireNonNull(eventIds, "eventIds");
    return action(
        "retry_now",
        "retry messages of inbox " + name,
        q -> q.bindArray("eventIds", String.class, eventIds),
        Integer.class);
  }

  /** An audited action's statement, bound to this inbox and actor, run in a handle of its own. */
  private <T> T action(
      String statement, String action, UnaryOperator<Query> binder, Class<T> type) {
    return withHandle(
        jdbi,
        action,
        name,
        null,
        h ->
            binder
                .apply(h.createQuery(sql(statement)).bind("name", name).bind("actor", actor))
                .mapTo(type)
                .one());
  }

  /** The audit trail of one inbox, or of all ({@code inbox} null). */
  static List<OperatorLogEntry> auditLog(Jdbi jdbi, String inbox, int limit, Long beforeId) {
    return withHandle(
        jdbi,
        "read the audit log",
        inbox,
        null,
        h ->
            h.createQuery(sql("audit"))
                .bind("name", inbox)
                .bind("limit", limit(limit))
                .bind("beforeId", beforeId)
                .map((rs, ctx) -> OperatorRows.logEntry(rs))
                .list());
  }

  private Query select(Query query, DeadLetterSelection selection) {
    Objects.requireNonNull(selection, "selection");
    query.bind("name", name).bind("actor", actor);
    if (selection.byIds()) {
      query.bindArray("eventIds", String.class, selection.eventIds());
    } else {
      query.bindNull("eventIds", java.sql.Types.ARRAY);
    }
    return query
        .bind("eventType", selection.eventType())
        .bind("errorGroup", selection.errorGroup());
  }

  /** Runs one statement of this inbox in its own handle and reads every row. */
  private <T> List<T> rows(
      String statement, String action, UnaryOperator<Query> binder, OperatorRows.Reader<T> reader) {
    return withHandle(
        jdbi,
        action + " of inbox " + name,
        name,
        null,
        h ->
            binder
                .apply(h.createQuery(sql(statement)).bind("name", name))
                .map((rs, ctx) -> reader.read(rs))
                .list());
  }

  private static int limit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidInboxArgumentException(
          "limit must be in 1.." + MAX_LIMIT + ", got " + limit, null);
    }
    return limit;
  }

  private static String sql(String statement) {
    return SqlFiles.get(PostgresInboxOperations.class, statement);
  }
}
