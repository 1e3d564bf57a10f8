package dev.pginbox.inbox.postgres.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pginbox.inbox.operations.BlockedAggregate;
import dev.pginbox.inbox.operations.DeadLetter;
import dev.pginbox.inbox.operations.DlqGroup;
import dev.pginbox.inbox.operations.FailedAttempt;
import dev.pginbox.inbox.operations.MessageDetail;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.operations.PartitionLag;
import dev.pginbox.inbox.operations.ThroughputPoint;
import dev.pginbox.inbox.operations.VacuumState;
import dev.pginbox.inbox.operations.WorkerInfo;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows of the operator functions ({@code sql/inbox/definitions/operator_views.sql}) read into
 * records.
 */
public final class OperatorRows {

  /** Reads the current row. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private OperatorRows() {}

  public static BlockedAggregate blockedAggregate(ResultSet rs) throws SQLException {
    return new BlockedAggregate(
        rs.getString("aggregate_id"),
        BlockedAggregate.Reason.fromSql(rs.getString("reason")),
        rs.getString("event_id"),
        rs.getString("event_type"),
        rs.getString("error"),
        rs.getInt("retry_count"),
        instant(rs, "blocked_until"),
        (Integer) rs.getObject("claimed_by_pid"),
        rs.getString("claimed_by"),
        rs.getLong("waiting_behind"),
        instant(rs, "head_received_at"),
        instant(rs, "blocked_since"));
  }

  public static PartitionLag partitionLag(ResultSet rs) throws SQLException {
    return new PartitionLag(
        (Integer) rs.getObject("partition_id"),
        rs.getLong("waiting"),
        rs.getLong("backing_off"),
        rs.getBoolean("counts_exact"),
        rs.getLong("oldest_eligible_age_seconds"),
        rs.getString("owner"),
        instant(rs, "lease_expires_at"),
        rs.getLong("behind_blocked"));
  }

  public static WorkerInfo worker(ResultSet rs) throws SQLException {
    List<Integer> partitions = new ArrayList<>();
    Array held = rs.getArray("partitions_held");
    if (held != null) {
      for (Object p : (Object[]) held.getArray()) {
        partitions.add(((Number) p).intValue());
      }
    }
    Object pid = rs.getObject("pid");
    Object concurrency = rs.getObject("concurrency");
    return new WorkerInfo(
        rs.getString("worker_id"),
        WorkerInfo.State.fromSql(rs.getString("state")),
        rs.getString("host"),
        pid == null ? null : ((Number) pid).longValue(),
        rs.getString("application_name"),
        rs.getString("assignment"),
        concurrency == null ? null : ((Number) concurrency).intValue(),
        (Boolean) rs.getObject("claim_ahead"),
        partitions,
        instant(rs, "lease_expires_at"),
        instant(rs, "last_heartbeat"),
        instant(rs, "started_at"),
        instant(rs, "stopped_at"));
  }

  public static DlqGroup dlqGroup(ResultSet rs) throws SQLException {
    return new DlqGroup(
        rs.getString("event_type"),
        rs.getString("error_group"),
        rs.getLong("dead"),
        instant(rs, "first_seen"),
        instant(rs, "last_seen"),
        rs.getString("example_event_id"),
        rs.getString("example_error"),
        instant(rs, "first_died_at"),
        instant(rs, "last_died_at"));
  }

  public static DeadLetter deadLetter(ResultSet rs) throws SQLException {
    return new DeadLetter(
        rs.getString("event_id"),
        rs.getString("event_type"),
        rs.getString("aggregate_id"),
        instant(rs, "received_at"),
        rs.getString("error"),
        rs.getInt("retry_count"),
        rs.getString("trace_id"));
  }

  public static MessageDetail message(ResultSet rs) throws SQLException {
    return new MessageDetail(
        rs.getString("event_id"),
        rs.getString("state"),
        rs.getString("event_type"),
        rs.getString("source"),
        rs.getString("aggregate_id"),
        rs.getString("payload"),
        instant(rs, "received_at"),
        instant(rs, "processed_at"),
        instant(rs, "next_attempt_at"),
        rs.getString("error"),
        rs.getInt("retry_count"),
        rs.getString("trace_id"),
        instant(rs, "failing_since"),
        instant(rs, "died_at"),
        attempts(rs));
  }

  /** The attempts of message.sql's jsonb history ({@code inbox.failure_history}), oldest first. */
  private static List<FailedAttempt> attempts(ResultSet rs) throws SQLException {
    String history = rs.getString("attempts");
    if (history == null) {
      return List.of();
    }
    List<FailedAttempt> attempts = new ArrayList<>();
    try {
      for (JsonNode a : JSON.readTree(history)) {
        Instant at = attemptTime(a.path("at").asText(""));
        if (at != null) {
          attempts.add(
              new FailedAttempt(a.path("attempt").asInt(), at, a.path("error").asText(null)));
        }
      }
    } catch (JsonProcessingException e) {
      throw new SQLException("unreadable failure history: " + e.getMessage(), e);
    }
    return attempts;
  }

  /**
   * An attempt's time as jsonb holds a timestamptz, {@code ±infinity} as pgJDBC reads them; null
   * for what is not a time (the table's owner may write anything there): that entry is left out.
   */
  private static Instant attemptTime(String text) {
    return switch (text) {
      case "infinity" -> OffsetDateTime.MAX.toInstant();
      case "-infinity" -> OffsetDateTime.MIN.toInstant();
      default -> {
        try {
          yield OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
          yield null;
        }
      }
    };
  }

  public static VacuumState vacuum(ResultSet rs) throws SQLException {
    return new VacuumState(
        rs.getLong("dead_rows"),
        rs.getLong("live_rows"),
        instant(rs, "last_vacuum"),
        rs.getLong("autovacuum_runs"),
        rs.getBoolean("autovacuum"),
        rs.getLong("autovacuum_naptime_seconds"),
        rs.getDouble("autovacuum_cost_delay_ms"));
  }

  public static ThroughputPoint throughput(ResultSet rs) throws SQLException {
    return new ThroughputPoint(
        instant(rs, "minute"), rs.getLong("processed"), rs.getLong("failed"));
  }

  public static OperatorLogEntry logEntry(ResultSet rs) throws SQLException {
    Object rows = rs.getObject("rows_affected");
    return new OperatorLogEntry(
        rs.getLong("id"),
        instant(rs, "logged_at"),
        rs.getString("role_name"),
        rs.getString("actor"),
        rs.getString("application_name"),
        rs.getString("action"),
        rs.getString("inbox_name"),
        rs.getString("arguments"),
        rows == null ? null : ((Number) rows).longValue());
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /**
   * A time read from a row, to bind again: pgJDBC reads and writes {@code -infinity} and {@code
   * infinity} as {@link OffsetDateTime#MIN} and {@link OffsetDateTime#MAX} (a keyset page after a
   * dead letter received at {@code -infinity}).
   */
  public static OffsetDateTime bindableTime(Instant instant) {
    if (instant == null) {
      return null;
    }
    if (!instant.isAfter(OffsetDateTime.MIN.toInstant())) {
      return OffsetDateTime.MIN;
    }
    if (!instant.isBefore(OffsetDateTime.MAX.toInstant())) {
      return OffsetDateTime.MAX;
    }
    return instant.atOffset(ZoneOffset.UTC);
  }
}
