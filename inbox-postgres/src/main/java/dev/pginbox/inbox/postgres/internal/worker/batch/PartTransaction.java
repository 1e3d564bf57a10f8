package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxTransaction;
import java.sql.SQLException;

/**
 * The transaction handed to a handler for one part of a batch (a message, or a batch handler's
 * messages). The part's savepoint is made sure of when the handler first unwraps the transaction
 * ({@link InFlightBatch#ensureSavepoint}): with the worker's own connections every database write
 * goes through {@link #unwrap}, so a part that never touches the database needs no savepoint of its
 * own. (With a {@link dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary} the handler may
 * write through its framework instead, so it is made sure of before the part begins.)
 */
final class PartTransaction implements InboxTransaction {

  private final InFlightBatch batch;

  PartTransaction(InFlightBatch batch) {
    this.batch = batch;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    T target = batch.store().unwrap(type);
    try {
      batch.ensureSavepoint();
    } catch (SQLException e) {
      throw new InboxException("cannot set the savepoint of the handler's work", null, e);
    }
    return target;
  }
}
