package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.util.List;

/** A message handler over a batch: one message per part, a failure charged to it alone. */
final class MessageCalls implements HandlerLoop {

  private final MessageHandler handler;
  private final WorkerEvents events;
  private final AttemptFailures failures;
  private final boolean eagerSavepoints;

  MessageCalls(
      MessageHandler handler,
      WorkerEvents events,
      AttemptFailures failures,
      boolean eagerSavepoints) {
    this.handler = handler;
    this.events = events;
    this.failures = failures;
    this.eagerSavepoints = eagerSavepoints;
  }

  @Override
  public boolean handle(List<InboxMessage> messages, InFlightBatch batch, Tally tally)
      throws SQLException {
    for (InboxMessage m : messages) {
      if (tally.hold.holds(m)) {
        tally.heldBack.add(m.eventId());
        continue;
      }
      List<String> id = List.of(m.eventId());
      if (!batch.beginPart(id, eagerSavepoints)) {
        return false;
      }
      Outcome outcome = null;
      Throwable error = null;
      long start = System.nanoTime();
      try {
        outcome = handler.handle(m, new PartTransaction(batch));
      } catch (HandlerAbortException e) {
        throw e;
      } catch (Exception | OutOfMemoryError | StackOverflowError e) {
        // An Error here is the message's doing (a payload too big to deserialise, a recursion it
        // triggers): charged like an exception, so it ends in the DLQ instead of looping forever.
        error = e;
      } finally {
        events.handlerNanos(System.nanoTime() - start);
      }
      if (AttemptFailures.refuses(error, tally)) {
        return true;
      }
      boolean succeeded = error == null && (outcome == null || outcome.marksProcessed());
      List<Failure> failure =
          succeeded ? List.of() : List.of(failures.of(m, error, outcome, batch));
      if (!batch.endPart(succeeded, failure, id)) {
        return false;
      }
      if (succeeded) {
        tally.count(outcome);
      } else {
        tally.hold.failed(m);
      }
    }
    return true;
  }
}
