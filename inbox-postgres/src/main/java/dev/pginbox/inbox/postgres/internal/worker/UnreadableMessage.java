package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.LogText;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
final class UnreadableMessage {

  private static final Logger LOG = LoggerFactory.getLogger(UnreadableMessage.class);

  private final WorkerContext ctx;
  private final BatchTransactionBoundary boundary;
  private final OutcomeRecorder recorder;
  private final String serverBound;

  UnreadableMessage(
      WorkerContext ctx, BatchTransactionBoundary boundary, OutcomeRecorder recorder) {
    this.ctx = ctx;
    this.boundary = boundary;
    this.recorder = recorder;
    this.serverBound = ServerBound.millis(ctx.options().processingTimeout());
  }

  /**
   * Charges the message now at the head of the claim order with {@code cause}; false when that
   * failed (the database's trouble: the caller backs off).
   */
  boolean charge(Throwable cause) {
    try {
      return boundary.inTransaction(
          (connection, rollbackOnly) -> {
            try (WorkerConnection wc = WorkerConnection.borrow(connection, ctx.inbox())) {
              chargeHead(wc, cause);
            }
            return true;
          });
    } catch (SQLException | RuntimeException | OutOfMemoryError e) {
      LOG.warn(
          "inbox {}: could not record a failed attempt for a message too big to read: {}",
          ctx.inbox(),
          SqlStates.describe(e));
      return false;
    }
  }

  private void chargeHead(WorkerConnection wc, Throwable cause) throws SQLException {
    ClaimScope.Claimable scope = ctx.scope().claimable();
    if (scope.nothing()) {
      return;
    }
    PreparedStatement ps = wc.statement("claim_unreadable");
    ps.setString(1, serverBound);
    ps.setString(2, serverBound);
    ctx.scope().bind(wc, ps, 3, scope);
    String eventId;
    long bytes;
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return;
      }
      eventId = rs.getString(1);
      bytes = rs.getLong(2);
    }
    LOG.warn(
        "inbox {}: message {} ({} payload bytes stored) does not fit in memory; recording a failed"
            + " attempt",
        ctx.inbox(),
        LogText.safe(eventId),
        bytes);
    recorder.record(
        wc,
        List.of(
            Failure.of(
                eventId,
                "out of memory reading the message ("
                    + bytes
                    + " payload bytes stored): "
                    + cause.getClass().getName()
                    + ": "
                    + SqlStates.describe(cause))));
  }
}
