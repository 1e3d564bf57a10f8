package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The {@code inbox} Actuator endpoint, read-only ({@link InboxWriteEndpoint} adds replay and purge
 * when {@code inbox.actuator.write-operations=true}):
 *
 * <ul>
 *   <li>{@code GET /actuator/inbox}: every inbox's health;
 *   <li>{@code GET /actuator/inbox/{name}}: health, {@code inbox_status} and this application's
 *       worker;
 *   <li>{@code GET /actuator/inbox/{name}/dlq?limit=N}: the oldest dead letters, each payload as
 *       JSON (also {@code pending}, {@code stats}, {@code partitions}).
 * </ul>
 *
 * <p>Its write operations only refuse, with 405 and the property that enables them.
 */
@Endpoint(id = "inbox")
public class InboxEndpoint {

  private final InboxManager manager;
  private final DataSource dataSource;
  private final PayloadCodec codec;
  private final ObjectProvider<InboxWorkerLifecycle> workers;
  private final int maxPageSize;

  InboxEndpoint(
      InboxManager manager,
      DataSource dataSource,
      PayloadCodec codec,
      ObjectProvider<InboxWorkerLifecycle> workers,
      int maxPageSize) {
    this.manager = manager;
    this.dataSource = dataSource;
    this.codec = codec;
    this.workers = workers;
    this.maxPageSize = maxPageSize;
  }

  @ReadOperation
  public Map<String, Object> inboxes() {
    Map<String, Object> all = new LinkedHashMap<>();
    for (String name : manager.names()) {
      all.put(name, manager.inbox(name).health());
    }
    return all;
  }

  @ReadOperation
  public Map<String, Object> inbox(@Selector String name) {
    Inbox inbox = manager.inbox(name);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("health", inbox.health());
    result.put("status", codec.read(inbox.status().json(), Map.class));
    workers
        .orderedStream()
        .filter(w -> w.inbox().equals(name))
        .findFirst()
        .ifPresent(
            w ->
                result.put(
                    "worker",
                    Map.of(
                        "handler", w.handler(),
                        "running", w.isRunning(),
                        "connected", w.connected(),
                        "options", w.options())));
    return result;
  }

  @ReadOperation
  public Object view(@Selector String name, @Selector String view, @Nullable Integer limit) {
    Inbox inbox = manager.inbox(name);
    int n = limit == null ? maxPageSize : Math.max(1, Math.min(limit, maxPageSize));
    return switch (view) {
      case "dlq" -> withJsonPayloads(inbox.deadLetters(n));
      case "pending" -> withJsonPayloads(inbox.pending(n));
      case "stats" -> inbox.stats();
      case "partitions" -> partitions(name);
      default ->
          throw new IllegalArgumentException(
              "unknown view '" + view + "': dlq, pending, stats or partitions");
    };
  }

  /** Refused: this endpoint is read-only ({@link InboxWriteEndpoint} replays). */
  @WriteOperation
  public WebEndpointResponse<Object> replay(
      @Selector String name,
      @Nullable String eventIds,
      @Nullable String eventType,
      SecurityContext securityContext) {
    return writesDisabled();
  }

  /** Refused: this endpoint is read-only ({@link InboxWriteEndpoint} purges). */
  @DeleteOperation
  public WebEndpointResponse<Object> purge(
      @Selector String name, @Nullable Integer batchSize, SecurityContext securityContext) {
    return writesDisabled();
  }

  private static WebEndpointResponse<Object> writesDisabled() {
    return error(
        405,
        "the inbox endpoint's write operations are disabled: set "
            + "inbox.actuator.write-operations=true to enable replay and purge (and secure the "
            + "endpoint first)");
  }

  /** The answer to a request the endpoint refuses: {@code {"error": reason}}. */
  static WebEndpointResponse<Object> error(int status, String reason) {
    return new WebEndpointResponse<>(Map.of("error", reason), status);
  }

  /** The answer to a failed call of the inbox API: 404 or 400 for what the caller got wrong. */
  static WebEndpointResponse<Object> error(InboxException e) {
    if (e instanceof InboxNotFoundException) {
      return error(WebEndpointResponse.STATUS_NOT_FOUND, e.getMessage());
    }
    if (e instanceof InvalidInboxArgumentException) {
      return error(WebEndpointResponse.STATUS_BAD_REQUEST, e.getMessage());
    }
    throw e;
  }

  /**
   * The messages with every field of {@link InboxMessage}, the payload as JSON rather than the
   * escaped text of it (a payload that is not JSON stays text).
   */
  private List<Map<String, Object>> withJsonPayloads(List<InboxMessage> messages) {
    List<Map<String, Object>> views = new ArrayList<>(messages.size());
    for (InboxMessage m : messages) {
      Map<String, Object> view = new LinkedHashMap<>();
      for (RecordComponent field : InboxMessage.class.getRecordComponents()) {
        view.put(field.getName(), valueOf(field, m));
      }
      view.put("payload", json(m.payload()));
      views.add(view);
    }
    return views;
  }

  private static @Nullable Object valueOf(RecordComponent field, InboxMessage m) {
    try {
      return field.getAccessor().invoke(m);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + field.getName() + " of a message", e);
    }
  }

  private @Nullable Object json(@Nullable String payload) {
    if (payload == null) {
      return null;
    }
    try {
      return codec.read(payload, Object.class);
    } catch (IllegalArgumentException e) {
      return payload;
    }
  }

  private List<Map<String, Object>> partitions(String name) {
    return JdbcClient.create(dataSource)
        .sql(PARTITIONS_SQL)
        .param("inbox", name)
        .query()
        .listOfRows();
  }

  InboxManager manager() {
    return manager;
  }

  PayloadCodec codec() {
    return codec;
  }

  private static final String PARTITIONS_SQL = SqlFiles.get(InboxEndpoint.class, "partitions");
}
