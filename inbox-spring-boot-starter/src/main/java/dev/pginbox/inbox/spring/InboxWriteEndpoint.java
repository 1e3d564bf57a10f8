package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.PurgeResult;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code inbox} endpoint with its write operations, present only with {@code
 * inbox.actuator.write-operations=true} (secure the endpoint like any other that changes data):
 *
 * <ul>
 *   <li>{@code POST /actuator/inbox/{name}} with {@code {"eventIds": [...]}} or {@code
 *       {"eventType": "..."}}: replays those dead letters;
 *   <li>{@code DELETE /actuator/inbox/{name}?batchSize=N}: one retention step ({@code
 *       purge_inbox}).
 * </ul>
 */
@Endpoint(id = "inbox")
public class InboxWriteEndpoint extends InboxEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(InboxWriteEndpoint.class);
  private static final int DEFAULT_PURGE_BATCH = 1000;

  InboxWriteEndpoint(
      InboxManager manager,
      DataSource dataSource,
      PayloadCodec codec,
      ObjectProvider<InboxWorkerLifecycle> workers,
      int maxPageSize) {
    super(manager, dataSource, codec, workers, maxPageSize);
  }

  @WriteOperation
  public Map<String, Object> replay(
      @Selector String name, @Nullable List<String> eventIds, @Nullable String eventType) {
    if ((eventIds == null) == (eventType == null)) {
      throw new IllegalArgumentException("give exactly one of eventIds and eventType");
    }
    Inbox inbox = manager().inbox(name);
    int replayed = eventIds != null ? inbox.replay(eventIds) : inbox.replayEventType(eventType);
    LOG.info("inbox {}: replayed {} dead letters through the actuator endpoint", name, replayed);
    return Map.of("replayed", replayed);
  }

  @DeleteOperation
  public PurgeResult purge(@Selector String name, @Nullable Integer batchSize) {
    PurgeResult result =
        manager().inbox(name).purge(batchSize == null ? DEFAULT_PURGE_BATCH : batchSize);
    LOG.info("inbox {}: purged through the actuator endpoint: {}", name, result);
    return result;
  }
}
