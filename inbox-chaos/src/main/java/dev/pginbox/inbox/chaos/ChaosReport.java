package dev.pginbox.inbox.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a run did and what the database showed afterwards. {@link #violations()} is empty when
 * nothing was lost, nothing applied twice and every aggregate's effects came in order.
 */
public record ChaosReport(
    int messages,
    long sendAttempts,
    long transientSendFailures,
    Map<ChaosPlan.Fault, Integer> faults,
    int workersStarted,
    Duration elapsed,
    long stored,
    long effects,
    long distinctEffects,
    long unprocessed,
    long deadLetters,
    long outOfOrder,
    List<String> violations) {

  public ChaosReport {
    faults = Map.copyOf(faults);
    violations = List.copyOf(violations);
  }
}
