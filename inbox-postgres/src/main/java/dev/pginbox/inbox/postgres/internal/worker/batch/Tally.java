package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.Outcome;
import java.util.ArrayList;
import java.util.List;

/** What the handler calls over one batch came to so far. */
final class Tally {
  int processed;
  int skipped;

  /** An environmental failure that stopped the calls (nobody is charged for it). */
  Throwable refused;

  /** Messages given back uncharged, behind a failure of their aggregate. */
  final List<String> heldBack = new ArrayList<>();

  /** The messages behind a failure of their aggregate. */
  final AggregateHold hold;

  Tally(AggregateHold hold) {
    this.hold = hold;
  }

  void count(Outcome outcome) {
    if (outcome != null && outcome.kind() == Outcome.Kind.SKIPPED) {
      skipped++;
    } else {
      processed++;
    }
  }
}
