package dev.pginbox.inbox.postgres.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.InboxStatus;
import dev.pginbox.inbox.operations.PurgeResult;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jdbi.v3.core.statement.Query;

/**
 * The static statements of the Java API (files under {@code InboxStatements/}) and the mapping of
 * their results. Every statement calls a function of the SQL API; nothing here re-implements it.
 */
public final class InboxStatements {

  private static final ObjectMapper JSON = new ObjectMapper();

  private InboxStatements() {}

  public static String sql(String name) {
    return SqlFiles.get(InboxStatements.class, name);
  }

  /** Binds the options create_inbox and alter_inbox share (all but the channel). */
  public static Query bindOptions(Query q, String name, InboxOptions o) {
    return q.bind("name", name)
        .bind("maxRetries", o.maxRetries())
        .bind("retentionHours", (int) o.processedRetention().toHours())
        .bind("dlqRetentionHours", (int) o.dlqRetention().toHours())
        .bind(
            "dedupRetentionHours",
            o.dedupRetention() == null ? null : (int) o.dedupRetention().toHours())
        .bind("backoffBaseSeconds", seconds(o.backoffBase()))
        .bind("backoffMaxSeconds", seconds(o.backoffMax()))
        .bind("degradedAgeSeconds", o.degradedAgeSeconds())
        .bind("criticalAgeSeconds", o.criticalAgeSeconds())
        .bind("degradedPending", o.degradedPending())
        .bind("criticalPending", o.criticalPending());
  }

  /** A row of inbox_options.sql. */
  public static InboxOptions options(ResultSet rs) throws SQLException {
    long dedup = rs.getLong("dedup_seconds");
    return new InboxOptions(
        rs.getInt("max_retries"),
        Duration.ofSeconds(rs.getLong("processed_seconds")),
        Duration.ofSeconds(rs.getLong("dlq_seconds")),
        rs.wasNull() || dedup == 0 ? null : Duration.ofSeconds(dedup),
        rs.getString("notify_channel"),
        Duration.ofNanos(Math.round(rs.getDouble("backoff_base_seconds") * 1e9)),
        Duration.ofNanos(Math.round(rs.getDouble("backoff_max_seconds") * 1e9)),
        rs.getInt("degraded_age_seconds"),
        rs.getInt("critical_age_seconds"),
        rs.getLong("degraded_pending"),
        rs.getLong("critical_pending"));
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  public static InboxHealth health(String json) {
    JsonNode n = parse(json);
    return new InboxHealth(
        n.path("inbox").asText(),
        n.path("pending_count").asLong(),
        n.path("dlq_count").asLong(),
        n.path("oldest_pending_age_seconds").asLong(),
        n.path("throughput_per_minute").asLong(),
        healthStatus(n.path("status").asText()),
        n.path("blocked_aggregates").asLong(),
        n.path("worst_partition_lag_seconds").asLong(),
        n.path("processing_count").asLong(),
        exact(n, "pending_count_exact"),
        exact(n, "dlq_count_exact"),
        exact(n, "blocked_aggregates_exact"),
        n.path("xmin_horizon").path("held_seconds").asLong(),
        horizonHolder(n.path("xmin_horizon").path("holder")),
        reasons(n.path("status_reasons")),
        n.path("blocked_count").asLong());
  }

  private static InboxHealth.HorizonHolder horizonHolder(JsonNode h) {
    if (!h.isObject()) {
      return null;
    }
    return new InboxHealth.HorizonHolder(
        h.path("kind").asText(),
        h.path("pid").isNumber() ? h.path("pid").asInt() : null,
        text(h, "name"),
        text(h, "role_name"),
        text(h, "application_name"),
        text(h, "state"),
        h.path("held_since").isTextual()
            ? OffsetDateTime.parse(h.path("held_since").asText()).toInstant()
            : null,
        h.path("held_seconds").isNumber() ? h.path("held_seconds").asLong() : null,
        h.path("active").asBoolean());
  }

  private static String text(JsonNode n, String field) {
    return n.path(field).isTextual() ? n.path(field).asText() : null;
  }

  private static List<String> reasons(JsonNode reasons) {
    List<String> list = new ArrayList<>();
    reasons.forEach(r -> list.add(r.asText()));
    return list;
  }

  public static InboxStatus status(String json) {
    JsonNode n = parse(json);
    JsonNode counts = n.path("counts");
    JsonNode processed = n.path("processed");
    return new InboxStatus(
        n.path("inbox").asText(),
        healthStatus(n.path("status").asText()),
        counts.path("pending").asLong(),
        counts.path("retrying").asLong(),
        counts.path("dead").asLong(),
        processed.path("last_1_minute").asLong(),
        processed.path("last_5_minutes").asLong(),
        processed.path("last_60_minutes").asLong(),
        n.path("oldest_pending_age_seconds").asLong(),
        json);
  }

  public static PurgeResult purge(String json) {
    JsonNode n = parse(json);
    return new PurgeResult(
        n.path("deleted_processed").asLong(),
        n.path("stripped_processed").asLong(),
        n.path("deleted_dead").asLong(),
        n.path("more").asBoolean());
  }

  /** A missing flag (a schema older than the flag) means the count was exact, as it then was. */
  private static boolean exact(JsonNode n, String field) {
    return n.path(field).asBoolean(true);
  }

  private static HealthStatus healthStatus(String value) {
    return HealthStatus.valueOf(value.toUpperCase(Locale.ROOT));
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new InboxException("unexpected JSON from the inbox SQL API: " + json, null, e);
    }
  }

  /** JSON text of a priority map, for {@code inbox.enable_inbox_priority}. */
  public static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new InboxException("cannot write JSON", null, e);
    }
  }
}
