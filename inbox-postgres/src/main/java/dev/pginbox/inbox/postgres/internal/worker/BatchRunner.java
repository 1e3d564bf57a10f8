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
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one batch in one transaction of the boundary: the claim (one statement that also marks the
 * messages processed), the handler, the failed attempts recorded with one statement, the commit;
 * and says how it ended as a {@link BatchOutcome}. On the success path that is two round trips per
 * batch whatever its size: the claim and the commit. One per processor thread.
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

  /** How long a timed-out batch's thread waits for its replacement to be done with the batch. */
  private final long releaseWaitNanos;

  /** The last connection's statements, kept while the boundary hands out the same connection. */
  private WorkerConnection statements;

  BatchRunner(
      WorkerContext ctx,
      BatchTransactionBoundary boundary,
      Suspects suspects,
      OutcomeRecorder recorder) {
    this.ctx = ctx;
    this.boundary = boundary;
    this.suspects = suspects;
    this.recorder = recorder;
    this.handlerCalls = new HandlerCalls(ctx, suspects);
    this.serverBound = ServerBound.millis(ctx.options().processingTimeout());
    this.releaseWaitNanos = ServerBound.of(ctx.options().processingTimeout()).toNanos();
  }

  /**
   * Claims up to {@code limit} messages and handles them. A claim of fewer than {@code minimum} is
   * given back. A null reason is decided by the claim: a full batch (MAX_REACHED) or fewer
   * (TIMEOUT).
   */
  BatchOutcome run(DispatchReason reason, int minimum, int limit, Tracker tracker) {
    Attempt attempt = new Attempt();
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
    List<InboxMessage> messages = claim(wc, limit);
    if (messages.size() < Math.max(minimum, 1)) { // none, or short of the order's minimum
      tracker.claimed(0);
      rollbackOnly.run();
      return BatchOutcome.empty();
    }
    attempt.messages = messages;
    tracker.claimed(messages.size());
    DispatchReason reason =
        dispatched != null
            ? dispatched
            : messages.size() >= ctx.options().batchSize()
                ? DispatchReason.MAX_REACHED
                : DispatchReason.TIMEOUT;
    ctx.events().dispatched(messages.size(), reason);
    InFlightBatch batch =
        new InFlightBatch(HandlerCalls.idsOf(messages), wc, Thread.currentThread());
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
    // serialization failure). Counting an attempt keeps such a batch from looping forever.
    LOG.warn(
        "inbox {}: committing a batch of {} failed; recording a failed attempt for each",
        ctx.inbox(),
        claimed,
        e);
    List<Failure> failures = new ArrayList<>(claimed);
    for (InboxMessage m : attempt.messages) {
      failures.add(Failure.of(m.eventId(), e));
    }
    try {
      boundary.inTransaction(
          (connection, rollbackOnly) -> {
            recorder.record(statementsOn(connection), failures);
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

  private List<InboxMessage> claim(WorkerConnection wc, int limit) throws SQLException {
    int[] buckets = ctx.scope().bucketsForClaim(wc);
    if (buckets != null && buckets.length == 0) {
      return List.of();
    }
    PreparedStatement ps = wc.statement("claim");
    ps.setInt(1, limit);
    ps.setString(2, serverBound);
    ps.setString(3, serverBound);
    if (buckets == null) {
      ps.setNull(4, Types.ARRAY);
    } else {
      ps.setArray(4, wc.connection().createArrayOf("int4", ClaimScope.box(buckets)));
    }
    long maxBytes = ctx.options().maxBatchBytes();
    if (maxBytes == WorkerOptions.NO_BATCH_BYTE_LIMIT) {
      ps.setNull(5, Types.BIGINT);
    } else {
      ps.setLong(5, maxBytes);
    }
    try (ResultSet rs = ps.executeQuery()) {
      return MessageRows.readAll(rs);
    }
  }
}
