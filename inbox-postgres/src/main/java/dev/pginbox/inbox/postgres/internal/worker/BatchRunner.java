package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.postgres.internal.MessageRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one batch on one connection: claim (one statement that also marks the messages processed),
 * the handler in the same transaction, failures recorded with one statement, commit. On the success
 * path that is two round trips per batch whatever its size: the claim and the commit.
 */
final class BatchRunner {

  private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

  /** The run's side of a running batch: reservations, watchdog, stop. */
  interface Tracker {
    /** Nothing to track: runOnce() has no reservations and no watchdog. */
    Tracker NONE =
        new Tracker() {
          @Override
          public void claimed(int count) {}

          @Override
          public Runnable started(Batch batch) {
            return () -> {};
          }
        };

    void claimed(int count);

    /** Called once the batch is claimed; returns what to call when the handler is done. */
    Runnable started(Batch batch);
  }

  /** The batch was taken away from this processor (timeout or shutdown); its connection is gone. */
  static final class TakenAwayException extends Exception {
    TakenAwayException() {
      super(null, null, false, false);
    }
  }

  private final WorkerContext ctx;

  /** See {@link ServerBound}: set by the claim statement, for the claim's transaction only. */
  private final String serverBound;

  BatchRunner(WorkerContext ctx) {
    this.ctx = ctx;
    this.serverBound = ServerBound.millis(ctx.options().processingTimeout());
  }

  /**
   * Claims and handles one batch; returns the number of messages claimed, 0 when the claim got
   * fewer than {@code minimum} and was rolled back. A null reason is decided by the claim: a full
   * batch was waiting (MAX_REACHED) or fewer (TIMEOUT).
   */
  int run(WorkerConnection wc, DispatchReason dispatched, int minimum, Tracker tracker)
      throws SQLException, TakenAwayException {
    List<InboxMessage> messages;
    try {
      messages = claim(wc);
    } catch (SQLException | RuntimeException e) {
      wc.rollbackQuietly();
      throw e;
    }
    if (messages.size() < Math.max(minimum, 1)) { // none, or short of the dispatch's minimum
      tracker.claimed(0);
      wc.connection().rollback();
      return 0;
    }
    tracker.claimed(messages.size());
    DispatchReason reason =
        dispatched != null
            ? dispatched
            : messages.size() >= ctx.options().batchSize()
                ? DispatchReason.MAX_REACHED
                : DispatchReason.TIMEOUT;
    ctx.metrics().claimed.increment(messages.size());
    ctx.metrics().batchSize.record(messages.size());
    ctx.listener().dispatch(messages.size(), reason);

    List<String> ids = new ArrayList<>(messages.size());
    for (InboxMessage m : messages) {
      ids.add(m.eventId());
    }
    Batch batch = new Batch(ids, reason, wc, Thread.currentThread());
    Runnable done = tracker.started(batch);
    try {
      handle(wc, messages, batch);
    } finally {
      done.run();
    }
    return messages.size();
  }

  private List<InboxMessage> claim(WorkerConnection wc) throws SQLException {
    int[] buckets = ctx.scope().bucketsForClaim(wc);
    if (buckets != null && buckets.length == 0) {
      return List.of();
    }
    PreparedStatement ps = wc.statement("claim");
    ps.setInt(1, ctx.options().batchSize());
    ps.setString(2, serverBound);
    ps.setString(3, serverBound);
    if (buckets == null) {
      ps.setNull(4, Types.ARRAY);
    } else {
      ps.setArray(4, wc.connection().createArrayOf("int4", ClaimScope.box(buckets)));
    }
    try (ResultSet rs = ps.executeQuery()) {
      return MessageRows.readAll(rs);
    }
  }

  private void handle(WorkerConnection wc, List<InboxMessage> messages, Batch batch)
      throws SQLException, TakenAwayException {
    Tally tally = new Tally();
    List<Failure> failures;
    try {
      failures = runHandler(wc, messages, tally, batch);
    } catch (BatchFailed e) {
      // The whole transaction goes (the handler's writes with it); each message gets a failed
      // attempt.
      wc.connection().rollback();
      recordInNewTransaction(wc, messages, e.getCause());
      return;
    }
    commit(wc, messages, failures, tally);
  }

  /**
   * Runs the handler on the batch; returns the failures to record. Whatever happens, once this
   * returns or throws anything but TakenAwayException, the batch is this processor's to end.
   */
  private List<Failure> runHandler(
      WorkerConnection wc, List<InboxMessage> messages, Tally tally, Batch batch)
      throws SQLException, TakenAwayException, BatchFailed {
    try {
      List<Failure> failures =
          ctx.batchHandler() != null
              ? handleBatch(wc, messages, tally)
              : handleEach(wc, messages, tally, batch);
      finishOrThrow(batch);
      return failures;
    } catch (HandlerAbortException e) {
      finishOrThrow(batch);
      wc.rollbackQuietly();
      throw e;
    } catch (BatchFailed e) {
      finishOrThrow(batch);
      throw e;
    } catch (SQLException e) {
      if (batch.takenAway()) {
        throw new TakenAwayException();
      }
      throw e;
    }
  }

  /** Claims the right to end the batch; the watchdog or stop() may have taken it away already. */
  private static void finishOrThrow(Batch batch) throws TakenAwayException {
    if (!batch.finish()) {
      throw new TakenAwayException();
    }
  }

  /**
   * Records the failures and commits: the messages processed, the failed ones reset for a retry.
   */
  private void commit(
      WorkerConnection wc, List<InboxMessage> messages, List<Failure> failures, Tally tally)
      throws SQLException {
    try {
      FailureRecorder.record(wc, ctx.inbox(), failures, ctx.metrics());
      wc.connection().commit();
    } catch (SQLException e) {
      wc.rollbackQuietly();
      if (Connections.isConnectionFailure(e, wc)) {
        throw e;
      }
      // Not the connection: the handler's writes broke the commit (a deferred constraint, a
      // serialization failure). Counting an attempt keeps such a batch from looping forever.
      LOG.warn(
          "inbox {}: committing a batch of {} failed; recording a failed attempt for each",
          ctx.inbox(),
          messages.size(),
          e);
      recordInNewTransaction(wc, messages, e);
      return;
    }
    ctx.metrics().processed.increment(tally.processed);
    ctx.metrics().skipped.increment(tally.skipped);
    ctx.listener().committed(messages.size());
  }

  /** Message by message, each in a (lazy) savepoint, so a failure undoes only its own writes. */
  private List<Failure> handleEach(
      WorkerConnection wc, List<InboxMessage> messages, Tally tally, Batch batch)
      throws SQLException {
    List<Failure> failures = new ArrayList<>();
    for (InboxMessage m : messages) {
      checkNotTakenAway(batch);
      MessageTransaction tx = new MessageTransaction(wc, true);
      Attempt attempt = attempt(m, tx);
      checkNotTakenAway(batch);
      if (attempt.succeeded()) {
        tx.release();
        tally.count(attempt.outcome());
      } else {
        tx.rollback();
        failures.add(attempt.failure(m.eventId()));
        if (attempt.error() != null) {
          LOG.debug("inbox {}: handler failed on {}", ctx.inbox(), m.eventId(), attempt.error());
        }
      }
    }
    return failures;
  }

  /**
   * One call of the message handler: its outcome, or what it threw (HandlerAbortException goes up).
   */
  private Attempt attempt(InboxMessage m, MessageTransaction tx) {
    long start = System.nanoTime();
    try {
      return new Attempt(ctx.messageHandler().handle(m, tx), null);
    } catch (HandlerAbortException e) {
      throw e;
    } catch (Exception e) {
      return new Attempt(null, e);
    } finally {
      ctx.metrics().handlerNanos(System.nanoTime() - start);
    }
  }

  /** The watchdog or stop() took the batch: stop handling it (its connection is gone anyway). */
  private static void checkNotTakenAway(Batch batch) throws SQLException {
    if (batch.takenAway()) {
      throw new SQLException("batch taken away", "57014");
    }
  }

  private List<Failure> handleBatch(WorkerConnection wc, List<InboxMessage> messages, Tally tally)
      throws BatchFailed {
    BatchResult result;
    long start = System.nanoTime();
    try {
      result = ctx.batchHandler().handle(List.copyOf(messages), new MessageTransaction(wc, false));
    } catch (HandlerAbortException e) {
      throw e;
    } catch (Exception e) {
      throw new BatchFailed(e);
    } finally {
      ctx.metrics().handlerNanos(System.nanoTime() - start);
    }
    List<Failure> failures = new ArrayList<>();
    for (InboxMessage m : messages) {
      Outcome outcome = result == null ? Outcome.processed() : result.outcomeOf(m.eventId());
      if (outcome.marksProcessed()) {
        tally.count(outcome);
      } else {
        failures.add(Failure.of(m.eventId(), outcome));
      }
    }
    return failures;
  }

  private void recordInNewTransaction(
      WorkerConnection wc, List<InboxMessage> messages, Throwable cause) throws SQLException {
    List<Failure> failures = new ArrayList<>(messages.size());
    for (InboxMessage m : messages) {
      failures.add(Failure.of(m.eventId(), cause));
    }
    recordFailures(wc, ctx, failures);
  }

  /**
   * In a transaction of its own on {@code wc}: the batch's transaction is gone (rolled back or
   * aborted).
   */
  static void recordFailures(WorkerConnection wc, WorkerContext ctx, List<Failure> failures)
      throws SQLException {
    try {
      FailureRecorder.record(wc, ctx.inbox(), failures, ctx.metrics());
      wc.connection().commit();
    } catch (SQLException | RuntimeException e) {
      wc.rollbackQuietly();
      throw e;
    }
  }

  /** What became of one message: a null outcome without error means processed. */
  private record Attempt(Outcome outcome, Throwable error) {
    boolean succeeded() {
      return error == null && (outcome == null || outcome.marksProcessed());
    }

    Failure failure(String eventId) {
      return error != null ? Failure.of(eventId, error) : Failure.of(eventId, outcome);
    }
  }

  private static final class BatchFailed extends Exception {
    BatchFailed(Throwable cause) {
      super(cause);
    }
  }

  private static final class Tally {
    int processed;
    int skipped;

    void count(Outcome outcome) {
      if (outcome != null && outcome.kind() == Outcome.Kind.SKIPPED) {
        skipped++;
      } else {
        processed++;
      }
    }
  }
}
