package dev.pginbox.inbox.testing;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxTransaction;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Wraps a handler and records the event ids it was called with, in call order, for ordering
 * assertions. Records calls, not commits: a call whose batch rolled back is recorded too.
 */
public final class RecordingHandler implements MessageHandler {

  private final MessageHandler delegate;
  private final List<InboxMessage> calls = new ArrayList<>();

  public RecordingHandler(MessageHandler delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** Records and marks everything processed. */
  public static RecordingHandler processingAll() {
    return new RecordingHandler((m, tx) -> Outcome.processed());
  }

  @Override
  public Outcome handle(InboxMessage message, InboxTransaction transaction) throws Exception {
    synchronized (calls) {
      calls.add(message);
    }
    return delegate.handle(message, transaction);
  }

  /** The event ids handled, in call order. */
  public List<String> handledEventIds() {
    synchronized (calls) {
      return calls.stream().map(InboxMessage::eventId).toList();
    }
  }

  /** The event ids handled per aggregate id, each in call order. */
  public Map<String, List<String>> handledByAggregate() {
    Map<String, List<String>> byAggregate = new LinkedHashMap<>();
    synchronized (calls) {
      for (InboxMessage m : calls) {
        byAggregate.computeIfAbsent(m.aggregateId(), a -> new ArrayList<>()).add(m.eventId());
      }
    }
    return byAggregate;
  }

  /** Fails unless the handler was called with exactly these event ids, in this order. */
  public void assertHandledInOrder(String... eventIds) {
    List<String> expected = List.of(eventIds);
    List<String> actual = handledEventIds();
    if (!actual.equals(expected)) {
      throw new AssertionError(
          "expected the handler to be called with "
              + expected
              + " in this order, but it got "
              + actual);
    }
  }
}
