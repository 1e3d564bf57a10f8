package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A batch handler over a batch: the whole batch in one part (suspects of an earlier timeout in
 * smaller ones, see {@link Suspects}); a part it throws on is rolled back and handed over again in
 * halves, down to single messages, and only a message that fails alone is charged.
 */
public final class BatchHandlerCalls implements HandlerCalls {

  private final BatchHandler handler;
  private final WorkerEvents events;
  private final AttemptFailures failures;
  private final Suspects suspects;
  private final boolean eagerSavepoints;
  private final boolean aggregateRuns;

  /** As {@link MessageCalls#MessageCalls}, for a batch handler. */
  public BatchHandlerCalls(
      BatchHandler handler,
      WorkerEvents events,
      FailureLog failures,
      Suspects suspects,
      boolean eagerSavepoints,
      boolean aggregateRuns) {
    this.handler = handler;
    this.events = events;
    this.failures = new AttemptFailures(failures);
    this.suspects = suspects;
    this.eagerSavepoints = eagerSavepoints;
    this.aggregateRuns = aggregateRuns;
  }

  @Override
  public Handled handle(List<InboxMessage> messages, InFlightBatch batch) throws SQLException {
    return Tally.handle(messages, aggregateRuns, batch, tally -> inParts(messages, batch, tally));
  }

  /** The handler over the batch in parts; false when the batch was taken away meanwhile. */
  private boolean inParts(List<InboxMessage> messages, InFlightBatch batch, Tally tally)
      throws SQLException {
    Deque<List<InboxMessage>> parts = new ArrayDeque<>(suspects.parts(messages, aggregateRuns));
    while (!parts.isEmpty()) {
      List<InboxMessage> part = tally.hold.without(parts.pollFirst(), tally.heldBack);
      if (part.isEmpty()) {
        continue;
      }
      List<String> ids = part.stream().map(InboxMessage::eventId).toList();
      if (!batch.beginPart(ids, eagerSavepoints)) {
        return false;
      }
      BatchResult result = null;
      Throwable error = null;
      long start = System.nanoTime();
      try {
        result = handler.handle(List.copyOf(part), batch);
      } catch (HandlerAbortException e) {
        throw e;
      } catch (Exception | OutOfMemoryError | StackOverflowError e) {
        error = e;
      } finally {
        events.handlerNanos(System.nanoTime() - start);
      }
      if (AttemptFailures.refuses(error, tally)) {
        return true;
      }
      if (!endPart(part, ids, result, error, batch, tally, parts)) {
        return false;
      }
    }
    return true;
  }

  /** Ends a part the handler returned from or threw on; false when the batch was taken away. */
  private boolean endPart(
      List<InboxMessage> part,
      List<String> ids,
      BatchResult result,
      Throwable error,
      InFlightBatch batch,
      Tally tally,
      Deque<List<InboxMessage>> parts)
      throws SQLException {
    if (error == null) {
      return endHandledPart(part, result, batch, tally, parts);
    }
    if (part.size() == 1) {
      boolean ended =
          batch.endPart(false, List.of(failures.of(part.get(0), error, null, batch)), ids);
      tally.hold.failed(part.get(0));
      return ended;
    }
    failures.partFailed(part.size(), error, batch);
    boolean ended = batch.endPart(false, List.of(), List.of());
    int half = (part.size() + 1) / 2;
    parts.addFirst(part.subList(half, part.size()));
    parts.addFirst(part.subList(0, half));
    return ended;
  }

  /**
   * Ends a part the batch handler returned a result for: its writes are kept, its failures charged
   * and the messages behind a failure of their aggregate (runs of an aggregate only) held back,
   * unless it reported one of those done. Then that message's work would commit ahead of the failed
   * message's retry: the part's writes are rolled back, its failures are still charged (a failed
   * message wrote nothing), the messages behind them are held back, and the rest of the part is
   * handed over again.
   */
  private boolean endHandledPart(
      List<InboxMessage> part,
      BatchResult result,
      InFlightBatch batch,
      Tally tally,
      Deque<List<InboxMessage>> parts)
      throws SQLException {
    boolean doneBehind = false;
    for (InboxMessage m : part) { // in claim order: a failure marks what follows it first
      boolean done = outcomeOf(result, m).marksProcessed();
      if (tally.hold.holds(m)) {
        doneBehind |= done;
      } else if (!done) {
        tally.hold.failed(m);
      }
    }
    List<Failure> partFailures = new ArrayList<>();
    List<String> finished = new ArrayList<>();
    List<InboxMessage> again = new ArrayList<>();
    for (InboxMessage m : part) {
      Outcome outcome = outcomeOf(result, m);
      if (tally.hold.holds(m)) {
        tally.heldBack.add(m.eventId());
      } else if (!outcome.marksProcessed()) {
        partFailures.add(failures.of(m, null, outcome, batch));
        finished.add(m.eventId());
      } else if (doneBehind) {
        again.add(m); // its writes are rolled back with the part's
      } else {
        tally.count(outcome);
        finished.add(m.eventId());
      }
    }
    if (!again.isEmpty()) {
      parts.addFirst(again);
    }
    return batch.endPart(!doneBehind, partFailures, finished);
  }

  private static Outcome outcomeOf(BatchResult result, InboxMessage m) {
    return result == null ? Outcome.processed() : result.outcomeOf(m.eventId());
  }
}
