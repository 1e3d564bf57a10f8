package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jdbi.v3.core.locator.ClasspathSqlLocator;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The {@code inbox} Actuator endpoint, read-only ({@link InboxWriteEndpoint} adds replay and purge
 * when {@code inbox.actuator.write-operations=true}):
 *
 * <ul>
 *   <li>{@code GET /actuator/inbox}: every inbox's health;
 *   <li>{@code GET /actuator/inbox/{name}}: health, {@code inbox_status} and this application's
 *       worker;
 *   <li>{@code GET /actuator/inbox/{name}/dlq?limit=N}: the oldest dead letters (also {@code
 *       pending}, {@code stats}, {@code partitions}).
 * </ul>
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
      case "dlq" -> inbox.deadLetters(n);
      case "pending" -> inbox.pending(n);
      case "stats" -> inbox.stats();
      case "partitions" -> partitions(name);
      default ->
          throw new IllegalArgumentException(
              "unknown view '" + view + "': dlq, pending, stats or partitions");
    };
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

  private static final String PARTITIONS_SQL = read("partitions.sql");

  /** The SQL file next to this class, read the way the inbox library reads its SQL. */
  private static String read(String resource) {
    return ClasspathSqlLocator.create()
        .getResource(
            InboxEndpoint.class.getClassLoader(),
            InboxEndpoint.class.getPackageName().replace('.', '/') + "/" + resource);
  }
}
