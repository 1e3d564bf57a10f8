package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.PurgeResult;
import dev.pginbox.inbox.spring.ReplaySelection.InvalidReplayRequest;
import java.security.Principal;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code inbox} endpoint with its write operations, present only with {@code
 * inbox.actuator.write-operations=true} (secure the endpoint like any other that changes data):
 *
 * <ul>
 *   <li>{@code POST /actuator/inbox/{name}} with {@code {"eventIds": ["e1", "e2"]}} or {@code
 *       {"eventType": "..."}}: replays those dead letters ({@code "eventIds": "e1,e2"}, the older
 *       form, works too);
 *   <li>{@code DELETE /actuator/inbox/{name}?batchSize=N}: one retention step ({@code
 *       purge_inbox}).
 * </ul>
 *
 * <p>A request the endpoint cannot carry out answers 400 (or 404 for an unknown inbox) with {@code
 * {"error": reason}}.
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

  /**
   * @param eventIds the JSON text of an array of event ids, one id, or ids separated by commas
   */
  @Override
  @WriteOperation
  public WebEndpointResponse<Object> replay(
      @Selector String name,
      @Nullable String eventIds,
      @Nullable String eventType,
      SecurityContext securityContext) {
    ReplaySelection selection;
    try {
      selection = ReplaySelection.of(eventIds, eventType, codec());
    } catch (InvalidReplayRequest e) {
      return error(WebEndpointResponse.STATUS_BAD_REQUEST, e.getMessage());
    }
    try {
      int replayed =
          operations(name, securityContext)
              .replay(
                  selection.eventIds() != null
                      ? DeadLetterSelection.ids(selection.eventIds())
                      : DeadLetterSelection.eventType(selection.eventType()));
      LOG.info("inbox {}: replayed {} dead letters through the actuator endpoint", name, replayed);
      return new WebEndpointResponse<>(Map.of("replayed", replayed));
    } catch (InboxException e) {
      return error(e);
    }
  }

  @Override
  @DeleteOperation
  public WebEndpointResponse<Object> purge(
      @Selector String name, @Nullable Integer batchSize, SecurityContext securityContext) {
    try {
      PurgeResult result =
          operations(name, securityContext)
              .purge(batchSize == null ? DEFAULT_PURGE_BATCH : batchSize);
      LOG.info("inbox {}: purged through the actuator endpoint: {}", name, result);
      return new WebEndpointResponse<>(result);
    } catch (InboxException e) {
      return error(e);
    }
  }

  /**
   * The inbox's audited operations, recording the request's authenticated principal (Spring
   * Security's user, when the application has it) as the actor: the database login alone cannot
   * tell which operator replayed.
   */
  private InboxOperations operations(String name, SecurityContext securityContext) {
    InboxOperations operations = manager().inbox(name).operations();
    String actor = actor(securityContext);
    return actor == null ? operations : operations.asActor(actor);
  }

  private static @Nullable String actor(@Nullable SecurityContext securityContext) {
    Principal principal = securityContext == null ? null : securityContext.getPrincipal();
    return principal == null ? null : principal.getName();
  }
}
