package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.util.List;

/** A message handler over a batch: one message per part, a failure charged to it alone. */
public final class MessageCalls implements HandlerCalls {

  private final MessageHandler handler;
  private final WorkerEvents events;
  private final AttemptFailures failures;
  private final boolean eagerSavepoints;
  private final boolean aggregateRuns;

  /**
   * {@code eagerSavepoints}: set each part's savepoint before the handler runs (with a boundary the
   * handler may write around unwrap); {@code aggregateRuns} (several messages of an aggregate per
   * batch): a failure holds back the later messages of its aggregate.
   */
  public MessageCalls(
      MessageHandler handler,
      WorkerEvents events,
      FailureLog failures,
      boolean eagerSavepoints,
      boolean aggregateRuns) {
    this.handler = handler;
    this.events = events;
    this.failures = new AttemptFailures(failures);
    this.eagerSavepoints = eagerSavepoints;
    this.aggregateRuns = aggregateRuns;
  }

  @Override
  public Handled handle(List<InboxMessage> messages, InFlightBatch batch) throws SQLException {
    return Tally.handle(
        messages, aggregateRuns, batch, tally -> eachMessage(messages, batch, tally));
  }

  /** The handler over each message; false when the batch was taken away meanwhile. */
  private boolean eachMessage(List<InboxMessage> messages, InFlightBatch batch, Tally tally)
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
        outcome = handler.handle(m, batch);
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
