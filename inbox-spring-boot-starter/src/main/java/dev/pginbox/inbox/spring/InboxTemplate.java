package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import java.sql.Connection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * Sends messages from a Spring application. Inside a transaction of the application's {@code
 * DataSource} (an {@code @Transactional} method, with the JDBC or the JPA transaction manager) the
 * message is written in that transaction: it exists if and only if the transaction commits. Outside
 * one, each call commits on its own. Sending is idempotent by event id.
 *
 * <p>When the call is observed (a traced request), the W3C {@code traceparent} of an {@code
 * inbox.send} span goes into the message's {@code trace_id}, and the handler's span continues that
 * trace.
 */
public final class InboxTemplate {

  private final DataSource dataSource;
  private final PostgresInboxManager manager;
  private final PayloadCodec codec;
  private final ObservationRegistry observations;
  private final Map<String, PostgresInbox> inboxes = new ConcurrentHashMap<>();

  InboxTemplate(
      DataSource dataSource,
      PostgresInboxManager manager,
      PayloadCodec codec,
      ObservationRegistry observations) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.manager = Objects.requireNonNull(manager, "manager");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.observations = Objects.requireNonNull(observations, "observations");
  }

  /** Writes a message; false when one with its event id exists already. */
  public boolean send(String inbox, NewMessage message) {
    Objects.requireNonNull(message, "message");
    return observed(
        inbox,
        traceparent -> onConnection(c -> inbox(inbox).send(c, traced(message, traceparent))));
  }

  /**
   * Writes a message whose payload is {@code payload} as JSON (the application's Jackson mapper);
   * false when one with its event id exists already.
   */
  public boolean send(
      String inbox, String eventId, String eventType, String aggregateId, Object payload) {
    return send(
        inbox,
        new NewMessage(
            eventId,
            eventType,
            null,
            aggregateId,
            payload == null ? null : codec.write(payload),
            null));
  }

  /** Writes messages in one statement; returns how many were new. */
  public int sendAll(String inbox, List<NewMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    return observed(
        inbox,
        traceparent ->
            onConnection(
                c ->
                    inbox(inbox)
                        .sendAll(c, messages.stream().map(m -> traced(m, traceparent)).toList())));
  }

  private PostgresInbox inbox(String name) {
    return inboxes.computeIfAbsent(name, manager::inbox);
  }

  private static NewMessage traced(NewMessage m, String traceparent) {
    if (m.traceId() != null || traceparent == null) {
      return m;
    }
    return new NewMessage(
        m.eventId(), m.eventType(), m.source(), m.aggregateId(), m.payload(), traceparent);
  }

  private <T> T onConnection(Function<Connection, T> work) {
    Connection c = DataSourceUtils.getConnection(dataSource);
    try {
      return work.apply(c);
    } finally {
      DataSourceUtils.releaseConnection(c, dataSource);
    }
  }

  /** Runs {@code send} in an {@code inbox.send} observation, handing it the traceparent if any. */
  private <T> T observed(String inbox, Function<String, T> send) {
    if (observations.isNoop()) {
      return send.apply(null);
    }
    Map<String, String> carrier = new HashMap<>();
    SenderContext<Map<String, String>> context = new SenderContext<>(Map::put);
    context.setCarrier(carrier);
    Observation observation =
        Observation.createNotStarted("inbox.send", () -> context, observations)
            .contextualName(inbox + " send")
            .lowCardinalityKeyValue("inbox", inbox)
            .start();
    try (Observation.Scope scope = observation.openScope()) {
      return send.apply(carrier.get(ObservedHandlers.TRACEPARENT));
    } catch (RuntimeException | Error e) {
      observation.error(e);
      throw e;
    } finally {
      observation.stop();
    }
  }
}
