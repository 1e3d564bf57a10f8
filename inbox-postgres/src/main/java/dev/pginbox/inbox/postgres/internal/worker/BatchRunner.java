package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.MessageRows;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one batch in one transaction of the boundary: the claim (one statement that also marks the
 * messages processed; for a handler that writes, followed by the savepoint of its first part in the
 * same round trip), the handler, the failed attempts recorded with one statement, the commit; and
 * says how it ended as a {@link BatchOutcome}. On the success path that is two round trips per
 * batch whatever its size, the claim and the commit, plus the handler's own statements. One per
 * processor thread.
 */
final class BatchRunner {

  private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

  /** The processor's side of a running batch: its reservation and its processing timeout. */
  interface Tracker {
    void claimed(int count);

    /** Called once the batch is claimed; returns what to call when the handler is done. */
    Runnable watch(InFlightBatch batch);
  }

  private final WorkerContext ctx;
  private final BatchTransactionBoundary boundary;
  private final HandlerCalls handlerCalls;
  private final OutcomeRecorder recorder;
  private final Suspects suspects;

  /** See {@link ServerBound}: set by the claim statement, for the claim's transaction only. */
  private final String serverBound;

  /** A bound on that wait whatever the poll interval, so a stopping worker is not held up. */
  private static final long MAX_HEAD_WAIT_MILLIS = 1_000;

  /**
   * The longest an empty claim waits for a held aggregate head: the poll interval, at most {@link
   * #MAX_HEAD_WAIT_MILLIS}; 0 for a runner that must not wait (runOnce).
   */
  private final int awaitMillis;

  /** How long a timed-out batch's thread waits for its replacement to be done with the batch. */
  private final long releaseWaitNanos;

  /** With claim ahead, the run's handler turns; null without (and for runOnce). */
  private final HandlerTurns turns;

  /**
   * The longest a claimed batch waits for a handler turn: halfway between the processing timeout
   * (by which the batch holding the turn is taken away; ending it takes a moment more) and the
   * server's bound on an idle transaction ({@link ServerBound}), which would end this one.
   */
  private final long turnWaitNanos;

  /** Batches this runner kept (claimed and not given back): every n-th skips the top priority. */
  private long kept;

  /**
   * A worker that prefers a share of an ordered inbox's buckets ({@link
   * ClaimScope#preferredOrClaimable}) asks the whole inbox in every n-th claim: the buckets no live
   * worker prefers (a worker that died and is still listed as live, a change in the number of
   * workers not seen by all yet) get that share of every worker's claims, oldest heads first.
   */
  static final int WHOLE_INBOX_EVERY = 8;

  /** Claims this runner made, for {@link #WHOLE_INBOX_EVERY}. */
  private long claims;

  /**
   * Whether the next claim sets the savepoint of the handler's first part in its round trip: while
   * the handler's last batch asked for the transaction (with a boundary every part does: its
   * savepoint is set before the handler runs). A handler that never touches the database pays
   * nothing for it; one that does pays no round trip of its own for its first savepoint.
   */
  private boolean claimSetsSavepoint = true;

  /** The last connection's statements, kept while the boundary hands out the same connection. */
  private WorkerConnection statements;

  BatchRunner(
      WorkerContext ctx,
      BatchTransactionBoundary boundary,
      Suspects suspects,
      OutcomeRecorder recorder,
      boolean waitsForHeldHeads,
      HandlerTurns turns) {
    this.ctx = ctx;
    this.turns = turns;
    Duration timeout = ctx.options().processingTimeout();
    this.turnWaitNanos = timeout.plus(ServerBound.of(timeout)).dividedBy(2).toNanos();
    this.boundary = boundary;
    this.suspects = suspects;
    this.recorder = recorder;
    this.handlerCalls = new HandlerCalls(ctx, suspects);
    this.serverBound = ServerBound.millis(ctx.options().processingTimeout());
    this.releaseWaitNanos = ServerBound.of(ctx.options().processingTimeout()).toNanos();
    this.awaitMillis =
        waitsForHeldHeads
            ? (int)
                Math.max(1, Math.min(MAX_HEAD_WAIT_MILLIS, ctx.options().pollInterval().toMillis()))
            : 0;
  }

  /**
   * Claims up to {@code limit} messages and handles them. A claim of fewer than {@code minimum} is
   * given back. A null reason is decided by the claim: a full batch (MAX_REACHED) or fewer
   * (TIMEOUT).
   */
  BatchOutcome run(DispatchReason reason, int minimum, int limit, Tracker tracker) {
    BatchOutcome outcome = attempt(reason, minimum, limit, tracker);
    if (outcome.kind() == BatchOutcome.Kind.COMMIT_FAILED) {
      LOG.warn(
          "inbox {}: committing a batch of {} failed; claiming smaller batches, down to one"
              + " message, to find the message that breaks the commit",
          ctx.inbox(),
          outcome.claimed(),
          outcome.cause());
    }
    // Nobody is charged for a commit that failed for several messages: the claim order hands the
    // first half out again, alone, until a claim commits or one message fails alone (charged in
    // failed()). At most log2(limit) more transactions.
    while (outcome.kind() == BatchOutcome.Kind.COMMIT_FAILED) {
      outcome = attempt(reason, 1, outcome.claimed() / 2, tracker);
    }
    return outcome;
  }

  private BatchOutcome attempt(DispatchReason reason, int minimum, int limit, Tracker tracker) {
    Attempt attempt = new Attempt();
    try {
      return transaction(reason, minimum, limit, tracker, attempt);
    } finally {
      if (attempt.turn != null) {
        attempt.turn.end(); // the transaction is over, whichever way it ended
      }
    }
  }

  private BatchOutcome transaction(
      DispatchReason reason, int minimum, int limit, Tracker tracker, Attempt attempt) {
    try {
      BatchOutcome outcome =
          boundary.inTransaction(
              (connection, rollbackOnly) ->
                  inTransaction(
                      connection, rollbackOnly, reason, minimum, limit, tracker, attempt));
      if (outcome.kind() == BatchOutcome.Kind.COMMITTED) {
        ctx.events().committed(outcome.claimed(), attempt.processed, attempt.skipped);
      }
      return outcome;
    } catch (SQLException | RuntimeException e) {
      return failed(e, attempt);
    } catch (OutOfMemoryError e) {
      if (attempt.batch != null && attempt.batch.takenAway()) {
        return BatchOutcome.takenAway(attempt.batch);
      }
      return BatchOutcome.outOfMemory(attempt.messages.size(), e);
    }
  }

  /** What the transaction got to, for reading an exception that ended it. */
  private static final class Attempt {
    WorkerConnection wc;
    InFlightBatch batch;
    HandlerTurns.Turn turn;
    List<InboxMessage> messages = List.of();
    boolean handled;
    int processed;
    int skipped;
  }

  private BatchOutcome inTransaction(
      Connection connection,
      Runnable rollbackOnly,
      DispatchReason dispatched,
      int minimum,
      int limit,
      Tracker tracker,
      Attempt attempt)
      throws SQLException {
    WorkerConnection wc = statementsOn(connection);
    attempt.wc = wc;
    ClaimScope.Claimable scope = ctx.scope().claimable();
    boolean savepoint = claimSetsSavepoint;
    ClaimScope.Claimable first =
        ++claims % WHOLE_INBOX_EVERY == 0 ? scope : ctx.scope().preferredOrClaimable();
    List<InboxMessage> messages = scope.nothing() ? List.of() : claim(wc, limit, first, savepoint);
    if (messages.isEmpty() && first != scope) {
      // Nothing claimable in the preferred buckets: the rest of the inbox, in the same transaction.
      messages = claim(wc, limit, scope, savepoint);
    }
    if (messages.size() < Math.max(minimum, 1)) { // none, or short of the order's minimum
      tracker.claimed(0);
      // Holding nothing, wait for a head another worker holds (ordered inboxes only). In the
      // buckets the worker believes it leases: a lease lost meanwhile costs at most a claim.
      boolean released = messages.isEmpty() && awaitHeldHead(wc, scope);
      rollbackOnly.run();
      return released ? BatchOutcome.headReleased() : BatchOutcome.empty();
    }
    if (turns != null) {
      // Claimed ahead: the handler starts once the batch before it has ended. Meanwhile this batch
      // only holds its messages' locks, and gives them back when a session waits for one: the
      // batch in hand may be that session (its handler writes a message this batch holds, for
      // one), and would otherwise wait for the batch that waits for it until the processing
      // timeout.
      attempt.turn = turns.await(turnWaitNanos, () -> blocksOthers(wc));
      if (attempt.turn == null) { // stopping, stuck or in the way: give this one back
        tracker.claimed(0);
        rollbackOnly.run();
        return BatchOutcome.empty();
      }
    }
    attempt.messages = messages;
    kept++;
    tracker.claimed(messages.size());
    DispatchReason reason =
        dispatched != null
            ? dispatched
            : messages.size() >= ctx.options().batchSize()
                ? DispatchReason.MAX_REACHED
                : DispatchReason.TIMEOUT;
    ctx.events().dispatched(messages.size(), reason);
    InFlightBatch batch =
        new InFlightBatch(
            HandlerCalls.idsOf(messages), wc, Thread.currentThread(), savepoint, attempt.turn);
    attempt.batch = batch;
    HandlerCalls.Handled handled;
    Runnable unwatch = tracker.watch(batch);
    try {
      handled = handlerCalls.handle(messages, batch);
    } catch (HandlerAbortException e) {
      if (!batch.finish()) {
        return takenAway(batch, rollbackOnly);
      }
      LOG.error(
          "inbox {}: handler aborted; the batch is rolled back and the worker stops",
          ctx.inbox(),
          e);
      rollbackOnly.run();
      return BatchOutcome.handlerAborted(messages.size(), e);
    } finally {
      unwatch.run();
      claimSetsSavepoint = batch.touched();
    }
    if (handled.takenAway() || !batch.finish()) {
      return takenAway(batch, rollbackOnly);
    }
    if (handled.refused() != null) {
      rollbackOnly.run();
      return BatchOutcome.refused(messages.size(), handled.refused());
    }
    attempt.handled = true;
    recorder.record(wc, handled.failures());
    if (!handled.heldBack().isEmpty()) {
      PreparedStatement release = wc.statement("release_claimed");
      release.setString(1, ctx.inbox());
      release.setArray(2, wc.connection().createArrayOf("text", handled.heldBack().toArray()));
      release.execute();
    }
    List<String> cleared = HandlerCalls.idsOf(messages);
    for (Failure f : handled.failures()) {
      if (f.delay() != null || f.dead()) {
        cleared.remove(f.eventId()); // asked for by the handler, not a suspect's doing
      }
    }
    suspects.cleared(cleared);
    attempt.processed = handled.processed();
    attempt.skipped = handled.skipped();
    return BatchOutcome.committed(messages.size());
  }

  /**
   * The batch was taken away: wait until the taker is done with the connection, then let the
   * boundary end a transaction that is already over.
   */
  private BatchOutcome takenAway(InFlightBatch batch, Runnable rollbackOnly) {
    batch.awaitReleased(releaseWaitNanos);
    rollbackOnly.run();
    return BatchOutcome.takenAway(batch);
  }

  /** The transaction ended with an exception: whose fault, and what to record. */
  private BatchOutcome failed(Exception e, Attempt attempt) {
    if (attempt.batch != null && attempt.batch.takenAway()) {
      return BatchOutcome.takenAway(attempt.batch);
    }
    int claimed = attempt.messages.size();
    String state = SqlStates.of(e);
    boolean closed = attempt.wc == null || attempt.wc.isClosed();
    if (SqlStates.isConnectionLoss(state) || closed) {
      return BatchOutcome.connectionLost(claimed, e);
    }
    if (SqlStates.isClientOutOfMemory(e) && !attempt.handled) {
      return BatchOutcome.outOfMemory(claimed, e);
    }
    if (SqlStates.isEnvironmental(state)) {
      return BatchOutcome.refused(claimed, e);
    }
    if (!attempt.handled) {
      return BatchOutcome.connectionLost(claimed, e);
    }
    // Not the connection: the handler's writes broke the commit (a deferred constraint, a
    // serialization failure). Which message's writes did is unknown until one fails alone (see
    // run); that one is charged, which keeps it from looping forever.
    if (claimed > 1) {
      return BatchOutcome.commitFailed(claimed, e);
    }
    InboxMessage culprit = attempt.messages.get(0);
    LOG.warn(
        "inbox {}: committing message {} alone failed; recording a failed attempt",
        ctx.inbox(),
        culprit.eventId(),
        e);
    try {
      boundary.inTransaction(
          (connection, rollbackOnly) -> {
            recorder.record(statementsOn(connection), List.of(Failure.of(culprit.eventId(), e)));
            return null;
          });
    } catch (SQLException | RuntimeException recordFailed) {
      return BatchOutcome.connectionLost(claimed, recordFailed);
    }
    return BatchOutcome.rolledBack(claimed, e);
  }

  private WorkerConnection statementsOn(Connection connection) {
    if (statements == null || !statements.wraps(connection)) {
      if (statements != null) {
        statements.close();
      }
      statements = WorkerConnection.borrow(connection, ctx.inbox());
    }
    return statements;
  }

  private List<InboxMessage> claim(
      WorkerConnection wc, int limit, ClaimScope.Claimable scope, boolean savepoint)
      throws SQLException {
    // Automatic partitions: the lease guard in the claim's statement (claim_guarded.sql).
    boolean guarded = scope.partitions() != null;
    String name = guarded ? "claim_guarded" : "claim";
    PreparedStatement ps = savepoint ? wc.claimAndSavepoint(name) : wc.statement(name);
    ps.setInt(1, limit);
    ps.setString(2, serverBound);
    ps.setString(3, serverBound);
    int next;
    if (guarded) {
      ctx.scope().bind(wc, ps, 4, scope);
      next = 9;
    } else {
      ClaimScope.setArray(wc, ps, 4, scope.buckets());
      next = 5;
    }
    long maxBytes = ctx.options().maxBatchBytes();
    if (maxBytes == WorkerOptions.NO_BATCH_BYTE_LIMIT) {
      ps.setNull(next, Types.BIGINT);
    } else {
      ps.setLong(next, maxBytes);
    }
    // Counted in kept batches: a claim given back (short of its minimum) keeps the turn.
    int every = ctx.options().lowerPriorityEvery();
    ps.setBoolean(next + 1, every > 0 && (kept + 1) % every == 0);
    ps.setInt(next + 2, ctx.options().messagesPerAggregate());
    ps.execute(); // the claimed rows first
    try (ResultSet rs = ps.getResultSet()) {
      return MessageRows.readAll(rs);
    }
  }

  /** Whether a session waits for a lock this connection's transaction holds. */
  private static boolean blocksOthers(WorkerConnection wc) throws SQLException {
    try (ResultSet rs = wc.statement("blocks_others").executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /**
   * After an empty claim on an ordered inbox, the heads may only be held by other workers' open
   * batches: wait (at most a poll interval, the time the worker would otherwise sleep, and 1 s)
   * until the first one is released, so this worker claims its successor at once and workers that
   * wake together share the heads (docs/performance.md, "Ordered claim"). True when one was
   * released.
   */
  private boolean awaitHeldHead(WorkerConnection wc, ClaimScope.Claimable scope)
      throws SQLException {
    if (awaitMillis == 0 || scope.nothing()) {
      return false;
    }
    PreparedStatement ps = wc.statement("await_held_head");
    ps.setString(1, ctx.inbox());
    ps.setInt(2, awaitMillis);
    ClaimScope.setArray(wc, ps, 3, scope.buckets());
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }
}
