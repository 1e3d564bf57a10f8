package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * With several messages of an aggregate per batch: once a message fails, the batch's later messages
 * of its aggregate are behind a failure and must not be handled in this batch (they would commit
 * ahead of the failed message's retry).
 */
final class AggregateHold {

  private final List<InboxMessage> batch;
  private final boolean aggregateRuns;
  private final Set<String> behindFailures = new HashSet<>();

  AggregateHold(List<InboxMessage> batch, boolean aggregateRuns) {
    this.batch = batch;
    this.aggregateRuns = aggregateRuns;
  }

  /** Message {@code m} of the batch failed: its aggregate's later messages are held back. */
  void failed(InboxMessage m) {
    if (!aggregateRuns || m.aggregateId() == null) {
      return;
    }
    boolean after = false;
    for (InboxMessage other : batch) {
      if (after && m.aggregateId().equals(other.aggregateId())) {
        behindFailures.add(other.eventId());
      }
      after |= other == m;
    }
  }

  boolean holds(InboxMessage m) {
    return behindFailures.contains(m.eventId());
  }

  /** The part without the messages held back, which go to {@code heldBack}. */
  List<InboxMessage> without(List<InboxMessage> part, List<String> heldBack) {
    if (behindFailures.isEmpty()) {
      return part;
    }
    List<InboxMessage> kept = new ArrayList<>(part.size());
    for (InboxMessage m : part) {
      if (holds(m)) {
        heldBack.add(m.eventId());
      } else {
        kept.add(m);
      }
    }
    return kept;
  }
}
