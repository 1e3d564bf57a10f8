package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import java.sql.SQLException;
import java.util.List;

/**
 * What a batch asks of the database, inside the transaction of one batch: the whole storage side of
 * the batch core. {@link PostgresBatchStore} runs each as a statement on the transaction's
 * connection; the unit tests run the batch core on an in-memory one. Used by the processor thread,
 * and for a timed-out batch by its replacement, never by both at once ({@link InFlightBatch}
 * decides who).
 */
public interface BatchStore {

  /**
   * One claim: up to {@code limit} messages of {@code scope}; {@code setSavepoint}: set the
   * savepoint of the handler's first part in the same round trip; {@code lowerPriority}: this batch
   * goes to the priorities below the top ({@code WorkerOptions.lowerPriorityEvery}).
   */
  record Claim(
      int limit, ClaimScope.Claimable scope, boolean setSavepoint, boolean lowerPriority) {}

  /** A failed attempt as recorded; {@code dead}: it made the message a dead letter. */
  record Recorded(String eventId, boolean dead) {}

  /** The message at the head of the claim order, claimed without reading its payload. */
  record Unreadable(String eventId, long storedBytes) {}

  /** Claims and marks processed, in one statement; the messages in claim order. */
  List<InboxMessage> claim(Claim claim) throws SQLException;

  /**
   * After an empty claim on an ordered inbox: waits up to {@code maxMillis} for a head another
   * transaction holds in {@code scope}; true when one was released.
   */
  boolean awaitHeldHead(ClaimScope.Claimable scope, int maxMillis) throws SQLException;

  /** Whether another session waits for a lock this transaction holds. */
  boolean blocksOthers() throws SQLException;

  /** Sets the part savepoint; {@code releasePrevious}: releases the one before in the same trip. */
  void setSavepoint(boolean releasePrevious) throws SQLException;

  /** Undoes the writes since the part savepoint. */
  void rollbackToSavepoint() throws SQLException;

  /** Records the failed attempts (several in one statement); what each became. */
  List<Recorded> recordFailures(List<Failure> failures) throws SQLException;

  /** Gives claimed messages back to the queue uncharged. */
  void releaseClaimed(List<String> eventIds) throws SQLException;

  /**
   * Ends a timed-out batch in one unit: back to the part savepoint ({@code rollBackPart}), the
   * failures recorded, {@code giveBack} released uncharged, commit.
   */
  List<Recorded> endTimedOut(boolean rollBackPart, List<Failure> failures, List<String> giveBack)
      throws SQLException;

  /** Claims the head of the claim order without its payload; null when there is none. */
  Unreadable claimUnreadable(ClaimScope.Claimable scope) throws SQLException;

  /** The transaction as the handler may see it (a JDBC connection, a Jdbi handle). */
  <T> T unwrap(Class<T> type);

  /** From another thread: cancels the statement running now. */
  void cancel();

  /** From another thread: closes the connection at once (the server rolls back). */
  void abort();

  boolean isClosed();
}
