package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;

/** Turns what a handler call ended with into a failed attempt to record, logged. */
final class AttemptFailures {

  private final FailureLog log;

  AttemptFailures(FailureLog log) {
    this.log = log;
  }

  /**
   * The failed attempt of {@code m}, thrown {@code error} or returned {@code outcome}, logged
   * unless {@code batch} was taken away: then the error is the timeout's or the stop's cancel, not
   * the handler's, and the attempt is not charged as such.
   */
  Failure of(InboxMessage m, Throwable error, Outcome outcome, InFlightBatch batch) {
    boolean log = !batch.takenAway();
    if (error != null) {
      if (log) {
        this.log.threw(m, error);
      }
      return Failure.of(m.eventId(), error);
    }
    if (log) {
      this.log.returned(m, outcome);
    }
    return Failure.of(m.eventId(), outcome);
  }

  /** A batch handler threw on a part of several messages (nobody charged yet). */
  void partFailed(int messages, Throwable error, InFlightBatch batch) {
    if (!batch.takenAway()) {
      log.partFailed(messages, error);
    }
  }

  /** An environmental failure stops the batch: nobody is charged for it. */
  static boolean refuses(Throwable error, Tally tally) {
    if (error != null
        && SqlStates.isEnvironmental(SqlStates.of(error))
        && !SqlStates.isClientOutOfMemory(error)) {
      tally.refused = error;
      return true;
    }
    return false;
  }
}
