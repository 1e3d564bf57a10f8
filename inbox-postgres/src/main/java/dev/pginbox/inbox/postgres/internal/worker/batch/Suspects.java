package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Messages of a batch handler's batch that timed out, and the largest part each may be handed to
 * the handler in next time. A batch handler's timeout does not say which message hung, so nobody is
 * charged: the batch goes back, and the next batches that hold those messages hand them over in
 * halves, then quarters, down to one message; a message that still hangs alone is then the one
 * charged. Only this worker process remembers (bounded, oldest forgotten first).
 */
public final class Suspects {

  private static final int MAX_REMEMBERED = 10_000;

  private final Map<String, Integer> limits =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  /** A part of these messages timed out: next time each goes in a part of at most half its size. */
  synchronized void halve(List<String> part) {
    int half = (part.size() + 1) / 2;
    for (String id : part) {
      limits.merge(id, half, Math::min);
    }
  }

  /**
   * A batch of {@code ids} committed with {@code failures}: its messages were handled (processed or
   * charged alone) and are no longer suspect, but for those whose failure the handler asked for (a
   * retry delay, dead at once), not a suspect's doing.
   */
  void committed(List<String> ids, List<Failure> failures) {
    List<String> cleared = new ArrayList<>(ids);
    for (Failure f : failures) {
      if (f.delay() != null || f.dead()) {
        cleared.remove(f.eventId());
      }
    }
    cleared(cleared);
  }

  /** These messages were handled (processed or charged alone): no longer suspect. */
  synchronized void cleared(Collection<String> ids) {
    if (!limits.isEmpty()) {
      limits.keySet().removeAll(ids);
    }
  }

  /**
   * The parts to hand a claimed batch over in: the whole batch when none is suspect, else the
   * others together first, then the suspects in claim order in parts no larger than any member's
   * limit. With {@code aggregateRuns} (a batch may hold several messages of an aggregate) a message
   * behind a suspect of its aggregate goes with the suspects, in claim order: handed over first, it
   * would be handled before the suspect.
   */
  synchronized List<List<InboxMessage>> parts(List<InboxMessage> messages, boolean aggregateRuns) {
    if (limits.isEmpty()) {
      return List.of(messages);
    }
    List<InboxMessage> innocent = new ArrayList<>();
    List<List<InboxMessage>> parts = new ArrayList<>();
    List<InboxMessage> current = new ArrayList<>();
    int currentLimit = Integer.MAX_VALUE;
    Set<String> suspectAggregates = new HashSet<>();
    for (InboxMessage m : messages) {
      Integer limit = limits.get(m.eventId());
      if (aggregateRuns && m.aggregateId() != null) {
        if (limit != null) {
          suspectAggregates.add(m.aggregateId());
        } else if (suspectAggregates.contains(m.aggregateId())) {
          limit = Integer.MAX_VALUE; // no limit of its own
        }
      }
      if (limit == null) {
        innocent.add(m);
        continue;
      }
      if (!current.isEmpty() && current.size() >= Math.min(currentLimit, limit)) {
        parts.add(current);
        current = new ArrayList<>();
        currentLimit = Integer.MAX_VALUE;
      }
      current.add(m);
      currentLimit = Math.min(currentLimit, limit);
    }
    if (!current.isEmpty()) {
      parts.add(current);
    }
    if (!innocent.isEmpty()) {
      parts.add(0, innocent);
    }
    return parts;
  }
}
