package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * Every handler call is a Micrometer {@link Observation} ({@code inbox.handle}, tagged with the
 * inbox and the outcome). A message's {@code trace_id} column holds the W3C {@code traceparent} of
 * the request that sent it, handed to the tracer as the incoming context, so the handler's span
 * continues the producer's trace.
 */
final class ObservedHandlers {

  static final String HANDLE = "inbox.handle";
  static final String HANDLE_BATCH = "inbox.handle.batch";
  static final String TRACEPARENT = "traceparent";

  private ObservedHandlers() {}

  // Its twin takes a BatchHandler; callers always pass a typed handler, never a bare lambda.
  @SuppressWarnings("overloads")
  static MessageHandler observe(
      MessageHandler handler, String inbox, ObservationRegistry registry) {
    if (registry.isNoop()) {
      return handler;
    }
    return (message, tx) -> {
      Observation observation =
          Observation.createNotStarted(HANDLE, () -> receiverContext(message), registry)
              .contextualName(inbox + " process")
              .lowCardinalityKeyValue("inbox", inbox)
              .highCardinalityKeyValue("event.id", message.eventId())
              .start();
      try (Observation.Scope scope = observation.openScope()) {
        Outcome outcome = handler.handle(message, tx);
        observation.lowCardinalityKeyValue(
            "outcome", (outcome == null ? Outcome.processed() : outcome).kind().name());
        return outcome;
      } catch (Exception | Error e) {
        observation.lowCardinalityKeyValue("outcome", "ERROR");
        observation.error(e);
        throw e;
      } finally {
        observation.stop();
      }
    };
  }

  @SuppressWarnings("overloads") // see the MessageHandler twin
  static BatchHandler observe(BatchHandler handler, String inbox, ObservationRegistry registry) {
    if (registry.isNoop()) {
      return handler;
    }
    return (batch, tx) -> {
      Observation observation =
          Observation.createNotStarted(HANDLE_BATCH, registry)
              .contextualName(inbox + " process batch")
              .lowCardinalityKeyValue("inbox", inbox)
              .highCardinalityKeyValue("batch.size", Integer.toString(batch.size()))
              .start();
      try (Observation.Scope scope = observation.openScope()) {
        BatchResult result = handler.handle(batch, tx);
        return result;
      } catch (Exception | Error e) {
        observation.error(e);
        throw e;
      } finally {
        observation.stop();
      }
    };
  }

  private static ReceiverContext<InboxMessage> receiverContext(InboxMessage message) {
    ReceiverContext<InboxMessage> context =
        new ReceiverContext<>((m, key) -> TRACEPARENT.equals(key) ? m.traceId() : null);
    context.setCarrier(message);
    return context;
  }
}
