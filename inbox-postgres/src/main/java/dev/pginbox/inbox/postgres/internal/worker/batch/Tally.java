package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import java.sql.SQLException;
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

  /** {@code aggregateRuns}: a failure holds back the later messages of its aggregate. */
  Tally(List<InboxMessage> messages, boolean aggregateRuns) {
    this.hold = new AggregateHold(messages, aggregateRuns);
  }

  /** Handler calls over a batch: false when the batch was taken away meanwhile. */
  interface Calls {
    boolean run(Tally tally) throws SQLException;
  }

  /** Runs {@code calls} over a batch with a fresh tally; what they came to. */
  static HandlerCalls.Handled handle(
      List<InboxMessage> messages, boolean aggregateRuns, InFlightBatch batch, Calls calls)
      throws SQLException {
    Tally tally = new Tally(messages, aggregateRuns);
    try {
      return tally.handled(calls.run(tally), batch);
    } catch (HandlerAbortException e) {
      return HandlerCalls.Handled.abortedBy(e);
    }
  }

  /** What the calls came to; {@code complete}: false when the batch was taken away meanwhile. */
  private HandlerCalls.Handled handled(boolean complete, InFlightBatch batch) {
    if (refused != null) {
      return HandlerCalls.Handled.refusedBy(refused);
    }
    return new HandlerCalls.Handled(
        !complete,
        null,
        null,
        complete ? batch.failures() : List.of(),
        complete ? heldBack : List.of(),
        processed,
        skipped);
  }

  void count(Outcome outcome) {
    if (outcome != null && outcome.kind() == Outcome.Kind.SKIPPED) {
      skipped++;
    } else {
      processed++;
    }
  }
}
