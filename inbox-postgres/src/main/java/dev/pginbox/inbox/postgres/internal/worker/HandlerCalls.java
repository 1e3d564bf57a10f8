package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Hands a claimed batch to the application's handler, part by part, each part in a savepoint of the
 * batch's transaction (see {@link InFlightBatch}):
 *
 * <ul>
 *   <li>a message handler gets one message per part; a failure undoes that message's writes and is
 *       charged to it alone;
 *   <li>a batch handler gets the whole batch; when it throws, nobody is charged yet: the part's
 *       writes are undone and it is handed over again in halves, down to single messages, and only
 *       a message that fails alone is charged (a timed-out part is split by {@link Suspects} the
 *       same way, over the next batches).
 * </ul>
 *
 * <p>With several messages of an aggregate per batch ({@code messagesPerAggregate}), a message that
 * fails holds back its aggregate: the batch's later messages of that aggregate are not handed to
 * the handler (or, handed over in the same part, not kept) but given back to the queue uncharged
 * ({@link Handled#heldBack}), so they follow the failed one when it is retried. A batch handler
 * that reports one of them done gets the rest of its part again, the part's writes rolled back (see
 * endHandledPart).
 */
final class HandlerCalls {

  /**
   * What the handler made of the batch; {@code takenAway}: it timed out or the worker stopped;
   * {@code refused}: the handler failed for an environmental reason (see {@link
   * SqlStates#isEnvironmental}), so the whole batch must roll back uncharged; {@code heldBack}: the
   * ids of messages not handed over because an earlier message of their aggregate failed.
   */
  record Handled(
      boolean takenAway,
      Throwable refused,
      List<Failure> failures,
      List<String> heldBack,
      int processed,
      int skipped) {

    static Handled refusedBy(Throwable error) {
      return new Handled(false, error, List.of(), List.of(), 0, 0);
    }
  }

  private final WorkerContext ctx;
  private final Suspects suspects;

  /** Set each part's savepoint before the handler runs (it may write around unwrap). */
  private final boolean eagerSavepoints;

  /** A batch may hold several messages of an aggregate: a failure holds back the later ones. */
  private final boolean aggregateRuns;

  HandlerCalls(WorkerContext ctx, Suspects suspects) {
    this.ctx = ctx;
    this.suspects = suspects;
    this.eagerSavepoints = ctx.boundary() != null;
    this.aggregateRuns = ctx.options().messagesPerAggregate() > 1;
  }

  /** Runs the handler over the batch; HandlerAbortException goes up. */
  Handled handle(List<InboxMessage> messages, InFlightBatch batch) throws SQLException {
    Tally tally = new Tally();
    boolean complete =
        ctx.batchHandler() != null
            ? handleInParts(messages, batch, tally)
            : handleEach(messages, batch, tally);
    if (tally.refused != null) {
      return Handled.refusedBy(tally.refused);
    }
    return new Handled(
        !complete,
        null,
        complete ? batch.failures() : List.of(),
        complete ? tally.heldBack : List.of(),
        tally.processed,
        tally.skipped);
  }

  /** False when the batch was taken away. */
  private boolean handleEach(List<InboxMessage> messages, InFlightBatch batch, Tally tally)
      throws SQLException {
    Set<String> behindFailures = new HashSet<>();
    for (InboxMessage m : messages) {
      if (behindFailures.contains(m.eventId())) {
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
        outcome = ctx.messageHandler().handle(m, new PartTransaction(batch));
      } catch (HandlerAbortException e) {
        throw e;
      } catch (Exception | OutOfMemoryError | StackOverflowError e) {
        // An Error here is the message's doing (a payload too big to deserialise, a recursion it
        // triggers): charged like an exception, so it ends in the DLQ instead of looping forever.
        error = e;
      } finally {
        ctx.events().handlerNanos(System.nanoTime() - start);
      }
      if (refuses(error, tally)) {
        return true;
      }
      boolean succeeded = error == null && (outcome == null || outcome.marksProcessed());
      List<Failure> failure = succeeded ? List.of() : List.of(failureOf(m, error, outcome));
      if (!batch.endPart(succeeded, failure, id)) {
        return false;
      }
      if (succeeded) {
        tally.count(outcome);
      } else {
        failed(messages, m, behindFailures);
      }
    }
    return true;
  }

  /** False when the batch was taken away. */
  private boolean handleInParts(List<InboxMessage> messages, InFlightBatch batch, Tally tally)
      throws SQLException {
    Set<String> behindFailures = new HashSet<>();
    Deque<List<InboxMessage>> parts = new ArrayDeque<>(suspects.parts(messages, aggregateRuns));
    while (!parts.isEmpty()) {
      List<InboxMessage> part = withoutHeldBack(parts.pollFirst(), behindFailures, tally);
      if (part.isEmpty()) {
        continue;
      }
      List<String> ids = idsOf(part);
      if (!batch.beginPart(ids, eagerSavepoints)) {
        return false;
      }
      BatchResult result = null;
      Throwable error = null;
      long start = System.nanoTime();
      try {
        result = ctx.batchHandler().handle(List.copyOf(part), new PartTransaction(batch));
      } catch (HandlerAbortException e) {
        throw e;
      } catch (Exception | OutOfMemoryError | StackOverflowError e) {
        error = e;
      } finally {
        ctx.events().handlerNanos(System.nanoTime() - start);
      }
      if (refuses(error, tally)) {
        return true;
      }
      boolean ended;
      if (error == null) {
        ended = endHandledPart(messages, part, result, batch, tally, parts, behindFailures);
      } else if (part.size() == 1) {
        ended = batch.endPart(false, List.of(failureOf(part.get(0), error, null)), ids);
        failed(messages, part.get(0), behindFailures);
      } else {
        ctx.failures().partFailed(part.size(), error);
        ended = batch.endPart(false, List.of(), List.of());
        int half = (part.size() + 1) / 2;
        parts.addFirst(part.subList(half, part.size()));
        parts.addFirst(part.subList(0, half));
      }
      if (!ended) {
        return false;
      }
    }
    return true;
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
      List<InboxMessage> messages,
      List<InboxMessage> part,
      BatchResult result,
      InFlightBatch batch,
      Tally tally,
      Deque<List<InboxMessage>> parts,
      Set<String> behindFailures)
      throws SQLException {
    boolean doneBehind = false;
    for (InboxMessage m : part) { // in claim order: a failure marks what follows it first
      boolean done = outcomeOf(result, m).marksProcessed();
      if (behindFailures.contains(m.eventId())) {
        doneBehind |= done;
      } else if (!done) {
        failed(messages, m, behindFailures);
      }
    }
    List<Failure> failures = new ArrayList<>();
    List<String> finished = new ArrayList<>();
    List<InboxMessage> again = new ArrayList<>();
    for (InboxMessage m : part) {
      Outcome outcome = outcomeOf(result, m);
      if (behindFailures.contains(m.eventId())) {
        tally.heldBack.add(m.eventId());
      } else if (!outcome.marksProcessed()) {
        failures.add(failureOf(m, null, outcome));
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
    return batch.endPart(!doneBehind, failures, finished);
  }

  private static Outcome outcomeOf(BatchResult result, InboxMessage m) {
    return result == null ? Outcome.processed() : result.outcomeOf(m.eventId());
  }

  /**
   * Message {@code m} of batch {@code messages} failed: with runs of an aggregate, the batch's
   * later messages of its aggregate are behind a failure and must not be handled in this batch.
   */
  private void failed(List<InboxMessage> messages, InboxMessage m, Set<String> behindFailures) {
    if (!aggregateRuns || m.aggregateId() == null) {
      return;
    }
    boolean after = false;
    for (InboxMessage other : messages) {
      if (after && m.aggregateId().equals(other.aggregateId())) {
        behindFailures.add(other.eventId());
      }
      after |= other == m;
    }
  }

  /** The part without the messages behind a failure (held back). */
  private static List<InboxMessage> withoutHeldBack(
      List<InboxMessage> part, Set<String> behindFailures, Tally tally) {
    if (behindFailures.isEmpty()) {
      return part;
    }
    List<InboxMessage> kept = new ArrayList<>(part.size());
    for (InboxMessage m : part) {
      if (behindFailures.contains(m.eventId())) {
        tally.heldBack.add(m.eventId());
      } else {
        kept.add(m);
      }
    }
    return kept;
  }

  /** The failed attempt of {@code m}, thrown {@code error} or returned {@code outcome}, logged. */
  private Failure failureOf(InboxMessage m, Throwable error, Outcome outcome) {
    if (error != null) {
      ctx.failures().threw(m, error);
      return Failure.of(m.eventId(), error);
    }
    ctx.failures().returned(m, outcome);
    return Failure.of(m.eventId(), outcome);
  }

  /** An environmental failure stops the batch: nobody is charged for it. */
  private static boolean refuses(Throwable error, Tally tally) {
    if (error != null
        && SqlStates.isEnvironmental(SqlStates.of(error))
        && !SqlStates.isClientOutOfMemory(error)) {
      tally.refused = error;
      return true;
    }
    return false;
  }

  static List<String> idsOf(List<InboxMessage> messages) {
    List<String> ids = new ArrayList<>(messages.size());
    for (InboxMessage m : messages) {
      ids.add(m.eventId());
    }
    return ids;
  }

  private static final class Tally {
    int processed;
    int skipped;
    Throwable refused;
    final List<String> heldBack = new ArrayList<>();

    void count(Outcome outcome) {
      if (outcome != null && outcome.kind() == Outcome.Kind.SKIPPED) {
        skipped++;
      } else {
        processed++;
      }
    }
  }
}
