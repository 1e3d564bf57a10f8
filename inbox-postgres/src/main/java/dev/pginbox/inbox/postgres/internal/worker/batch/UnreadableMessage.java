package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.postgres.internal.LogText;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges the message a claim of one could not read into memory. Such a message fails the same way
 * at every claim, so left uncharged it would hold its place at the head of the claim order forever
 * and nothing behind it would flow. It is claimed once more in a transaction of its own, reading
 * only its id and stored payload size, and recorded as a failed attempt: after max retries it is a
 * dead letter, with the reason in its error. The message charged is the one at the head of the
 * claim order at that moment: the same one unless another claim took it in between, in which case
 * the one charged gets a single failed attempt it may not have earned (retried after its backoff).
 */
public final class UnreadableMessage {

  private static final Logger LOG = LoggerFactory.getLogger(UnreadableMessage.class);

  private final String inbox;
  private final BatchTransactions transactions;
  private final ClaimScope scope;
  private final OutcomeRecorder recorder;

  public UnreadableMessage(
      String inbox, BatchTransactions transactions, ClaimScope scope, OutcomeRecorder recorder) {
    this.inbox = inbox;
    this.transactions = transactions;
    this.scope = scope;
    this.recorder = recorder;
  }

  /**
   * Charges the message now at the head of the claim order with {@code cause}; false when that
   * failed (the database's trouble: the caller backs off).
   */
  public boolean charge(Throwable cause) {
    try {
      return transactions.inTransaction(
          (store, rollbackOnly) -> {
            chargeHead(store, cause);
            return true;
          });
    } catch (SQLException | RuntimeException | OutOfMemoryError e) {
      LOG.warn(
          "inbox {}: could not record a failed attempt for a message too big to read: {}",
          inbox,
          SqlStates.describe(e));
      return false;
    }
  }

  private void chargeHead(BatchStore store, Throwable cause) throws SQLException {
    ClaimScope.Claimable claimable = scope.claimable();
    if (claimable.nothing()) {
      return;
    }
    BatchStore.Unreadable head = store.claimUnreadable(claimable);
    if (head == null) {
      return;
    }
    LOG.warn(
        "inbox {}: message {} ({} payload bytes stored) does not fit in memory; recording a failed"
            + " attempt",
        inbox,
        LogText.safe(head.eventId()),
        head.storedBytes());
    recorder.record(
        store,
        List.of(
            Failure.of(
                head.eventId(),
                "out of memory reading the message ("
                    + head.storedBytes()
                    + " payload bytes stored): "
                    + cause.getClass().getName()
                    + ": "
                    + SqlStates.describe(cause))));
  }
}
