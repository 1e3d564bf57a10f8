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

  /** The failed attempt of {@code m}, thrown {@code error} or returned {@code outcome}, logged. */
  Failure of(InboxMessage m, Throwable error, Outcome outcome) {
    if (error != null) {
      log.threw(m, error);
      return Failure.of(m.eventId(), error);
    }
    log.returned(m, outcome);
    return Failure.of(m.eventId(), outcome);
  }

  /** A batch handler threw on a part of several messages (nobody charged yet). */
  void partFailed(int messages, Throwable error) {
    log.partFailed(messages, error);
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
