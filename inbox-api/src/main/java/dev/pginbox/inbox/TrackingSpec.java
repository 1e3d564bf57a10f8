package dev.pginbox.inbox;

import java.time.Duration;
import java.util.Objects;

/**
 * An inbox over an existing table ({@code inbox.enable_inbox_tracking}). The table is never
 * altered, except for the notification trigger that {@code notifyOnInsert} asks for. Optional
 * columns ({@code receivedAt}, {@code aggregate}, {@code retryCount}, {@code error}, {@code
 * payload}) left at their standard names are used when the table has them and skipped otherwise;
 * null skips one. Retry counts, errors and backoff the table has no columns for are kept in the
 * inbox's side table.
 *
 * @param table the table, optionally schema-qualified ({@code app.incoming_events})
 * @param processedRetention null: retention never deletes from the table
 * @param notifyOnInsert true: a statement-level trigger on the table notifies workers of inserts;
 *     false: workers poll
 * @param arrivalColumn a NOT NULL integer column every insert fills from its own sequence (an
 *     identity or serial column, sequence without cache): the claim order's arrival, and the column
 *     the claim floors bound, so that claims skip what a held xmin horizon keeps of messages
 *     claimed before; null: none (arrival by received at, then id)
 */
public record TrackingSpec(
    String name,
    String table,
    String idColumn,
    String processedAtColumn,
    String eventTypeColumn,
    String receivedAtColumn,
    String aggregateColumn,
    String retryCountColumn,
    String errorColumn,
    int maxRetries,
    Duration processedRetention,
    Duration dlqRetention,
    String payloadColumn,
    boolean notifyOnInsert,
    String arrivalColumn) {

  public TrackingSpec {
    InboxNames.requireValid(name);
    if (table == null || table.isBlank()) {
      throw new InvalidInboxArgumentException("a table is required", name);
    }
    Objects.requireNonNull(idColumn, "idColumn");
    Objects.requireNonNull(processedAtColumn, "processedAtColumn");
    Objects.requireNonNull(eventTypeColumn, "eventTypeColumn");
    Objects.requireNonNull(dlqRetention, "dlqRetention");
    if (maxRetries < 1) {
      throw new InvalidInboxArgumentException(
          "maxRetries must be at least 1, got " + maxRetries, name);
    }
  }

  public static Builder builder(String name, String table) {
    return new Builder(name, table);
  }

  /** Builder with the defaults of the SQL function (the managed inbox's column names). */
  public static final class Builder {
    private final String name;
    private final String table;
    private String idColumn = "event_id";
    private String processedAtColumn = "processed_at";
    private String eventTypeColumn = "event_type";
    private String receivedAtColumn = "received_at";
    private String aggregateColumn = "aggregate_id";
    private String retryCountColumn = "retry_count";
    private String errorColumn = "error";
    private int maxRetries = InboxOptions.DEFAULT_MAX_RETRIES;
    private Duration processedRetention;
    private Duration dlqRetention = InboxOptions.DEFAULT_DLQ_RETENTION;
    private String payloadColumn = "payload";
    private boolean notifyOnInsert;
    private String arrivalColumn;

    private Builder(String name, String table) {
      this.name = name;
      this.table = table;
    }

    public Builder idColumn(String v) {
      idColumn = v;
      return this;
    }

    public Builder processedAtColumn(String v) {
      processedAtColumn = v;
      return this;
    }

    public Builder eventTypeColumn(String v) {
      eventTypeColumn = v;
      return this;
    }

    public Builder receivedAtColumn(String v) {
      receivedAtColumn = v;
      return this;
    }

    public Builder aggregateColumn(String v) {
      aggregateColumn = v;
      return this;
    }

    public Builder retryCountColumn(String v) {
      retryCountColumn = v;
      return this;
    }

    public Builder errorColumn(String v) {
      errorColumn = v;
      return this;
    }

    public Builder maxRetries(int v) {
      maxRetries = v;
      return this;
    }

    public Builder processedRetention(Duration v) {
      processedRetention = v;
      return this;
    }

    public Builder dlqRetention(Duration v) {
      dlqRetention = v;
      return this;
    }

    public Builder payloadColumn(String v) {
      payloadColumn = v;
      return this;
    }

    public Builder notifyOnInsert(boolean v) {
      notifyOnInsert = v;
      return this;
    }

    public Builder arrivalColumn(String v) {
      arrivalColumn = v;
      return this;
    }

    public TrackingSpec build() {
      return new TrackingSpec(
          name,
          table,
          idColumn,
          processedAtColumn,
          eventTypeColumn,
          receivedAtColumn,
          aggregateColumn,
          retryCountColumn,
          errorColumn,
          maxRetries,
          processedRetention,
          dlqRetention,
          payloadColumn,
          notifyOnInsert,
          arrivalColumn);
    }
  }
}
