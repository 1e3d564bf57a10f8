package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an exception that ended a batch's transaction: whose fault it was (the connection's, the
 * database's set-up, the JVM's memory, the handler's writes) and so how the batch ended. A commit
 * that one message alone broke is charged to it here, in a transaction of its own.
 */
final class TransactionErrors {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionErrors.class);

  private final String inbox;
  private final BatchTransactions transactions;
  private final OutcomeRecorder recorder;

  TransactionErrors(String inbox, BatchTransactions transactions, OutcomeRecorder recorder) {
    this.inbox = inbox;
    this.transactions = transactions;
    this.recorder = recorder;
  }

  /** The transaction of {@code attempt} ended with {@code e}: whose fault, and what to record. */
  BatchOutcome outcomeOf(Exception e, Attempt attempt) {
    if (attempt.takenAway()) {
      return BatchOutcome.takenAway(attempt.batch);
    }
    int claimed = attempt.messages.size();
    String state = SqlStates.of(e);
    boolean closed = attempt.store == null || attempt.store.isClosed();
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
    // BatchRunner.run); that one is charged, which keeps it from looping forever.
    if (claimed > 1) {
      return BatchOutcome.commitFailed(claimed, e);
    }
    return chargeCulprit(attempt.messages.get(0), e);
  }

  /** The JVM ran out of memory in the transaction of {@code attempt}. */
  BatchOutcome outOfMemory(OutOfMemoryError e, Attempt attempt) {
    if (attempt.takenAway()) {
      return BatchOutcome.takenAway(attempt.batch);
    }
    return BatchOutcome.outOfMemory(attempt.messages.size(), e);
  }

  private BatchOutcome chargeCulprit(InboxMessage culprit, Exception e) {
    LOG.warn(
        "inbox {}: committing message {} alone failed; recording a failed attempt",
        inbox,
        culprit.eventId(),
        e);
    try {
      transactions.inTransaction(
          (store, rollbackOnly) -> {
            recorder.record(store, List.of(Failure.of(culprit.eventId(), e)));
            return null;
          });
    } catch (SQLException | RuntimeException recordFailed) {
      return BatchOutcome.connectionLost(1, recordFailed);
    }
    return BatchOutcome.rolledBack(1, e);
  }
}
