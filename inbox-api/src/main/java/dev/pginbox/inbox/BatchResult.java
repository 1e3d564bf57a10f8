package dev.pginbox.inbox;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/** The outcome of every message of a batch; a message without an entry counts as processed. */
public final class BatchResult {

  private static final BatchResult ALL_PROCESSED = new BatchResult(Map.of());

  private final Map<String, Outcome> outcomes;

  private BatchResult(Map<String, Outcome> outcomes) {
    this.outcomes = outcomes;
  }

  public static BatchResult allProcessed() {
    return ALL_PROCESSED;
  }

  public static BatchResult of(Map<String, Outcome> outcomes) {
    return new BatchResult(Map.copyOf(outcomes));
  }

  /** A copy of this result with {@code eventId}'s outcome set. */
  public BatchResult with(String eventId, Outcome outcome) {
    Map<String, Outcome> copy = new HashMap<>(outcomes);
    copy.put(
        Objects.requireNonNull(eventId, "eventId"), Objects.requireNonNull(outcome, "outcome"));
    return new BatchResult(Collections.unmodifiableMap(copy));
  }

  public Outcome outcomeOf(String eventId) {
    return outcomes.getOrDefault(eventId, Outcome.processed());
  }

  public Map<String, Outcome> outcomes() {
    return outcomes;
  }
}
