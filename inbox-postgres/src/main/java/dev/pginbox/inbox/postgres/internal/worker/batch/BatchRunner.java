package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.connection.ServerBound;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one batch in one transaction: claim, wait for a handler turn (claim ahead only, {@link
 * HandlerTurns}), the handler ({@link HandlerCalls}), the outcome recorded ({@link
 * OutcomeRecorder}), commit; and says how it ended as a {@link BatchOutcome}. An exception that
 * ends the transaction is read by {@link TransactionErrors}; a commit that several messages broke
 * is retried here in halves. On the success path that is two round trips per batch whatever its
 * size, the claim and the commit, plus the handler's own statements. One per processor thread: the
 * claim's counters below are that thread's.
 */
public final class BatchRunner {

  private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

  /**
   * A worker that prefers a share of an ordered inbox's buckets ({@link
   * ClaimScope#preferredOrClaimable}) asks the whole inbox in every n-th claim: the buckets no live
   * worker prefers (a worker that died and is still listed as live, a change in the number of
   * workers not seen by all yet) get that share of every worker's claims, oldest heads first.
   */
  static final int WHOLE_INBOX_EVERY = 8;

  /** A bound on the wait for a held head whatever the poll interval: stop is not held up. */
  private static final long MAX_HEAD_WAIT_MILLIS = 1_000;

  /** The processor's side of a running batch: its reservation and its processing timeout. */
  public interface Tracker {
    void claimed(int count);

    /** Called once the batch is claimed; returns what to call when the handler is done. */
    Runnable watch(InFlightBatch batch);
  }

  /** What one transaction is asked for: see {@link #run}. */
  private record Request(DispatchReason reason, int minimum, int limit, Tracker tracker) {}

  /** What a claim got, from which scope, and whether it set the first part's savepoint. */
  private record Claimed(
      List<InboxMessage> messages, ClaimScope.Claimable scope, boolean savepointSet) {}

  private final WorkerOptions options;
  private final BatchTransactions transactions;
  private final ClaimScope scope;
  private final HandlerCalls handlerCalls;
  private final OutcomeRecorder recorder;
  private final Suspects suspects;
  private final WorkerEvents events;
  private final TransactionErrors errors;

  /** With claim ahead, the run's handler turns; null without (and for runOnce). */
  private final HandlerTurns turns;

  /**
   * The longest an empty claim waits for a held aggregate head: the poll interval, at most {@link
   * #MAX_HEAD_WAIT_MILLIS}; 0 for a runner that must not wait (runOnce).
   */
  private final int headWaitMillis;

  /** Claims made, for {@link #WHOLE_INBOX_EVERY}. */
  private long claims;

  /** Batches kept (claimed and not given back): every n-th skips the top priority. */
  private long kept;

  /**
   * Whether the next claim sets the savepoint of the handler's first part in its round trip: while
   * the handler's last batch asked for the transaction (with a boundary every part does: its
   * savepoint is set before the handler runs). A handler that never touches the database pays
   * nothing for it; one that does pays no round trip of its own for its first savepoint.
   */
  private boolean claimSetsSavepoint = true;

  /**
   * {@code waitsForHeldHeads}: an empty claim may wait for a head another worker holds (not for
   * runOnce); {@code turns}: the run's handler turns (null: none).
   */
  public BatchRunner(
      WorkerOptions options,
      BatchTransactions transactions,
      ClaimScope scope,
      boolean waitsForHeldHeads,
      HandlerCalls handlerCalls,
      OutcomeRecorder recorder,
      Suspects suspects,
      WorkerEvents events,
      HandlerTurns turns) {
    this.options = options;
    this.transactions = transactions;
    this.scope = scope;
    this.handlerCalls = handlerCalls;
    this.recorder = recorder;
    this.suspects = suspects;
    this.events = events;
    this.errors = new TransactionErrors(options.inbox(), transactions, recorder);
    this.turns = turns;
    this.headWaitMillis =
        waitsForHeldHeads
            ? (int) Math.max(1, Math.min(MAX_HEAD_WAIT_MILLIS, options.pollInterval().toMillis()))
            : 0;
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
          options.inbox(),
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
    Claimed claimed = claim(store, request.limit());
    List<InboxMessage> messages = claimed.messages();
    if (messages.size() < Math.max(request.minimum(), 1)) { // none, or short of the minimum
      return giveBack(store, rollbackOnly, claimed, request.tracker());
    }
    // Claimed ahead: the handler starts once the batch before it has ended (see HandlerTurns).
    attempt.turn =
        turns == null ? null : turns.await(options.processingTimeout(), store::blocksOthers);
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
    recorder.record(store, handled.failures());
    if (!handled.heldBack().isEmpty()) { // given back uncharged, behind a failure
      store.releaseClaimed(handled.heldBack());
    }
    suspects.committed(batch.eventIds(), handled.failures());
    attempt.processed = handled.processed();
    attempt.skipped = handled.skipped();
    return BatchOutcome.committed(messages.size());
  }

  /**
   * Claims up to {@code limit} messages: the preferred buckets first (a worker's share of an
   * ordered inbox; every {@value #WHOLE_INBOX_EVERY}th claim the whole inbox), then the rest; the
   * handler's first savepoint in the same round trip while the handler uses the transaction; every
   * {@code lowerPriorityEvery}th kept batch from the priorities below the top.
   */
  private Claimed claim(BatchStore store, int limit) throws SQLException {
    ClaimScope.Claimable all = scope.claimable();
    boolean savepoint = claimSetsSavepoint;
    ClaimScope.Claimable first =
        ++claims % WHOLE_INBOX_EVERY == 0 ? all : scope.preferredOrClaimable();
    // Counted in kept batches: a claim given back (short of its minimum) keeps the turn.
    int every = options.lowerPriorityEvery();
    boolean lowerPriority = every > 0 && (kept + 1) % every == 0;
    List<InboxMessage> messages =
        all.nothing()
            ? List.of()
            : store.claim(new BatchStore.Claim(limit, first, savepoint, lowerPriority));
    if (messages.isEmpty() && first != all) {
      // Nothing claimable in the preferred buckets: the rest of the inbox, in the same transaction.
      messages = store.claim(new BatchStore.Claim(limit, all, savepoint, lowerPriority));
    }
    return new Claimed(messages, all, savepoint);
  }

  /**
   * None claimed, or fewer than the minimum: given back. After an empty claim on an ordered inbox
   * the heads may only be held by other workers' open batches: holding nothing, wait (at most a
   * poll interval, the time the worker would otherwise sleep, and 1 s) until the first one is
   * released, so this worker claims its successor at once and workers that wake together share the
   * heads (docs/performance.md, "Ordered claim"). It waits in the buckets the worker believes it
   * leases: a lease lost meanwhile costs at most a claim.
   */
  private BatchOutcome giveBack(
      BatchStore store, Runnable rollbackOnly, Claimed claimed, Tracker tracker)
      throws SQLException {
    tracker.claimed(0);
    boolean released =
        claimed.messages().isEmpty()
            && headWaitMillis > 0
            && !claimed.scope().nothing()
            && store.awaitHeldHead(claimed.scope(), headWaitMillis);
    rollbackOnly.run();
    return released ? BatchOutcome.headReleased() : BatchOutcome.empty();
  }

  /** The batch is kept: reserved, reported, and in flight from now on. */
  private InFlightBatch dispatch(
      BatchStore store, Claimed claimed, Request request, HandlerTurns.Turn turn) {
    List<InboxMessage> messages = claimed.messages();
    kept++;
    request.tracker().claimed(messages.size());
    DispatchReason reason =
        request.reason() != null
            ? request.reason()
            : messages.size() >= options.batchSize()
                ? DispatchReason.MAX_REACHED
                : DispatchReason.TIMEOUT;
    events.dispatched(messages.size(), reason);
    List<String> ids = messages.stream().map(InboxMessage::eventId).toList();
    return new InFlightBatch(ids, store, Thread.currentThread(), claimed.savepointSet(), turn);
  }

  /** The handler over the batch, under the processing timeout. */
  private HandlerCalls.Handled callHandler(
      InFlightBatch batch, List<InboxMessage> messages, Tracker tracker) throws SQLException {
    Runnable unwatch = tracker.watch(batch);
    try {
      return handlerCalls.handle(messages, batch);
    } finally {
      unwatch.run();
      claimSetsSavepoint = batch.touched();
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
      batch.awaitReleased(ServerBound.of(options.processingTimeout()).toNanos());
      rollbackOnly.run();
      return BatchOutcome.takenAway(batch);
    }
    if (handled.aborted() != null) {
      LOG.error(
          "inbox {}: handler aborted; the batch is rolled back and the worker stops",
          options.inbox(),
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
}
