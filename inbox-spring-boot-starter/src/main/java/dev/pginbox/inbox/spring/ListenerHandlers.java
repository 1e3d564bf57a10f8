package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;

/** The library's handler interfaces over an {@code @InboxListener} method. */
final class ListenerHandlers {

  private ListenerHandlers() {}

  static MessageHandler messageHandler(ListenerMethod method, PayloadCodec codec) {
    return (message, tx) -> {
      Object payload = null;
      if (method.payloadType() != null) {
        try {
          payload =
              message.payload() == null
                  ? null
                  : codec.read(message.payload(), method.payloadType());
        } catch (IllegalArgumentException e) {
          // Retrying cannot fix a payload that does not bind: a dead letter at once, replayable
          // once the listener is fixed.
          return Outcome.dead(
              "payload does not bind to "
                  + method.payloadType().getTypeName()
                  + ": "
                  + e.getMessage());
        }
      }
      Object result = method.invoke(message, null, payload, tx);
      return result == null ? Outcome.processed() : (Outcome) result;
    };
  }

  static BatchHandler batchHandler(ListenerMethod method) {
    return (batch, tx) -> {
      Object result = method.invoke(null, batch, null, tx);
      return result == null ? BatchResult.allProcessed() : (BatchResult) result;
    };
  }
}
