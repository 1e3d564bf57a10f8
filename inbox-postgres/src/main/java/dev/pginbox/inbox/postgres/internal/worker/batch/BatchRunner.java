package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.connection.ServerBound;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one batch in one transaction: claim ({@link BatchClaim}), wait for a handler turn (claim
 * ahead only, {@link HandlerTurns}), the handler ({@link HandlerCalls}), the outcome recorded
 * ({@link OutcomeRecorder}), commit; and says how it ended as a {@link BatchOutcome}. An exception
 * that ends the transaction is read by {@link TransactionErrors}; a commit that several messages
 * broke is retried here in halves. On the success path that is two round trips per batch whatever
 * its size, the claim and the commit, plus the handler's own statements. One per processor thread.
 */
public final class BatchRunner {

  private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

  /** The processor's side of a running batch: its reservation and its processing timeout. */
  public interface Tracker {
    void claimed(int count);

    /** Called once the batch is claimed; returns what to call when the handler is done. */
    Runnable watch(InFlightBatch batch);
  }

  /** What one transaction is asked for: see {@link #run}. */
  private record Request(DispatchReason reason, int minimum, int limit, Tracker tracker) {}

  private final String inbox;
  private final int batchSize;
  private final BatchTransactions transactions;
  private final BatchClaim claim;
  private final HandlerCalls handlerCalls;
  private final OutcomeRecorder recorder;
  private final Suspects suspects;
  private final WorkerEvents events;
  private final TransactionErrors errors;

  /** With claim ahead, the run's handler turns; null without (and for runOnce). */
  private final HandlerTurns turns;

  /**
   * The longest a claimed batch waits for a handler turn: halfway between the processing timeout
   * (by which the batch holding the turn is taken away; ending it takes a moment more) and the
   * server's bound on an idle transaction ({@link ServerBound}), which would end this one.
   */
  private final long turnWaitNanos;

  /** How long a timed-out batch's thread waits for its replacement to be done with the batch. */
  private final long releaseWaitNanos;

  public BatchRunner(
      WorkerOptions options,
      BatchTransactions transactions,
      BatchClaim claim,
      HandlerCalls handlerCalls,
      OutcomeRecorder recorder,
      Suspects suspects,
      WorkerEvents events,
      HandlerTurns turns) {
    this.inbox = options.inbox();
    this.batchSize = options.batchSize();
    this.transactions = transactions;
    this.claim = claim;
    this.handlerCalls = handlerCalls;
    this.recorder = recorder;
    this.suspects = suspects;
    this.events = events;
    this.errors = new TransactionErrors(inbox, transactions, recorder);
    this.turns = turns;
    Duration timeout = options.processingTimeout();
    this.turnWaitNanos = timeout.plus(ServerBound.of(timeout)).dividedBy(2).toNanos();
    this.releaseWaitNanos = ServerBound.of(timeout).toNanos();
  }

  /**
   * Claims up to {@code limit} messages and handles them. A claim of fewer than {@code minimum} is
   * given back. A null reason is decided by the claim: a full batch (MAX_REACHED) or fewer
   * (TIMEOUT).
   */
  public BatchOutcome run(DispatchReason reason, int minimum, int limit, Tracker tracker) {
    BatchOutcome outcome = attempt(new Request(reason, minimum, limit, tracker));
    if (outcome.kind() == BatchOutcome.Kind.COMMIT_FAILED) {
      LOG.warn(
          "inbox {}: committing a batch of {} failed; claiming smaller batches, down to one"
              + " message, to find the message that breaks the commit",
          inbox,
          outcome.claimed(),
          outcome.cause());
    }
    // Nobody is charged for a commit that failed for several messages: the claim order hands the
    // first half out again, alone, until a claim commits or one message fails alone (charged by
    // TransactionErrors). At most log2(limit) more transactions.
    while (outcome.kind() == BatchOutcome.Kind.COMMIT_FAILED) {
      outcome = attempt(new Request(reason, 1, outcome.claimed() / 2, tracker));
    }
    return outcome;
  }

  private BatchOutcome attempt(Request request) {
    Attempt attempt = new Attempt();
    try {
      BatchOutcome outcome =
          transactions.inTransaction(
              (store, rollbackOnly) -> inTransaction(store, rollbackOnly, request, attempt));
      if (outcome.kind() == BatchOutcome.Kind.COMMITTED) {
        events.committed(outcome.claimed(), attempt.processed, attempt.skipped);
      }
      return outcome;
    } catch (SQLException | RuntimeException e) {
      return errors.outcomeOf(e, attempt);
    } catch (OutOfMemoryError e) {
      return errors.outOfMemory(e, attempt);
    } finally {
      if (attempt.turn != null) {
        attempt.turn.end(); // the transaction is over, whichever way it ended
      }
    }
  }

  /** The steps of one batch, each ending the batch early or handing its value to the next. */
  private BatchOutcome inTransaction(
      BatchStore store, Runnable rollbackOnly, Request request, Attempt attempt)
      throws SQLException {
    attempt.store = store;
    BatchClaim.Claimed claimed = claim.claim(store, request.limit());
    List<InboxMessage> messages = claimed.messages();
    if (messages.size() < Math.max(request.minimum(), 1)) { // none, or short of the minimum
      return giveBack(store, rollbackOnly, claimed, request.tracker());
    }
    attempt.turn = awaitTurn(store);
    if (turns != null && attempt.turn == null) { // stopping, stuck or in the way: give it back
      request.tracker().claimed(0);
      rollbackOnly.run();
      return BatchOutcome.empty();
    }
    attempt.messages = messages;
    InFlightBatch batch = dispatch(store, claimed, request, attempt.turn);
    attempt.batch = batch;
    HandlerCalls.Handled handled = callHandler(batch, messages, request.tracker());
    BatchOutcome ended = endedEarly(batch, handled, rollbackOnly, messages.size());
    if (ended != null) {
      return ended;
    }
    attempt.handled = true;
    record(store, batch, handled);
    attempt.processed = handled.processed();
    attempt.skipped = handled.skipped();
    return BatchOutcome.committed(messages.size());
  }

  /**
   * None claimed, or fewer than the minimum: given back. Holding nothing, wait for a head another
   * worker holds (ordered inboxes only), in the buckets the worker believes it leases: a lease lost
   * meanwhile costs at most a claim.
   */
  private BatchOutcome giveBack(
      BatchStore store, Runnable rollbackOnly, BatchClaim.Claimed claimed, Tracker tracker)
      throws SQLException {
    tracker.claimed(0);
    boolean released = claimed.messages().isEmpty() && claim.awaitHeldHead(store, claimed.scope());
    rollbackOnly.run();
    return released ? BatchOutcome.headReleased() : BatchOutcome.empty();
  }

  /**
   * Claimed ahead: the handler starts once the batch before it has ended. Meanwhile this batch only
   * holds its messages' locks, and gives them back when a session waits for one: the batch in hand
   * may be that session (its handler writes a message this batch holds, for one), and would
   * otherwise wait for the batch that waits for it until the processing timeout. Null without claim
   * ahead, or when no turn came.
   */
  private HandlerTurns.Turn awaitTurn(BatchStore store) throws SQLException {
    return turns == null ? null : turns.await(turnWaitNanos, store::blocksOthers);
  }

  /** The batch is kept: reserved, reported, and in flight from now on. */
  private InFlightBatch dispatch(
      BatchStore store, BatchClaim.Claimed claimed, Request request, HandlerTurns.Turn turn) {
    List<InboxMessage> messages = claimed.messages();
    claim.kept();
    request.tracker().claimed(messages.size());
    DispatchReason reason =
        request.reason() != null
            ? request.reason()
            : messages.size() >= batchSize ? DispatchReason.MAX_REACHED : DispatchReason.TIMEOUT;
    events.dispatched(messages.size(), reason);
    return new InFlightBatch(
        InFlightBatch.idsOf(messages), store, Thread.currentThread(), claimed.savepointSet(), turn);
  }

  /** The handler over the batch, under the processing timeout. */
  private HandlerCalls.Handled callHandler(
      InFlightBatch batch, List<InboxMessage> messages, Tracker tracker) throws SQLException {
    Runnable unwatch = tracker.watch(batch);
    try {
      return handlerCalls.handle(messages, batch);
    } catch (HandlerAbortException e) {
      return HandlerCalls.Handled.abortedBy(e);
    } finally {
      unwatch.run();
      claim.handlerTouched(batch.touched());
    }
  }

  /**
   * How the batch ends when it does not commit its outcome: taken away (timeout, stop), the handler
   * aborted the worker, or the database refused the handler's work. Null: it commits.
   */
  private BatchOutcome endedEarly(
      InFlightBatch batch, HandlerCalls.Handled handled, Runnable rollbackOnly, int claimed) {
    if (handled.takenAway() || !batch.finish()) {
      // Wait until the taker is done with the connection, then let the boundary end a transaction
      // that is already over.
      batch.awaitReleased(releaseWaitNanos);
      rollbackOnly.run();
      return BatchOutcome.takenAway(batch);
    }
    if (handled.aborted() != null) {
      LOG.error(
          "inbox {}: handler aborted; the batch is rolled back and the worker stops",
          inbox,
          handled.aborted());
      rollbackOnly.run();
      return BatchOutcome.handlerAborted(claimed, handled.aborted());
    }
    if (handled.refused() != null) {
      rollbackOnly.run();
      return BatchOutcome.refused(claimed, handled.refused());
    }
    return null;
  }

  /** The failures recorded, the messages held back given back, the suspects cleared. */
  private void record(BatchStore store, InFlightBatch batch, HandlerCalls.Handled handled)
      throws SQLException {
    recorder.record(store, handled.failures());
    if (!handled.heldBack().isEmpty()) {
      store.releaseClaimed(handled.heldBack());
    }
    suspects.committed(batch.eventIds(), handled.failures());
  }
}
