package dev.pginbox.inbox.postgres.internal.worker.batch;

import java.sql.SQLException;

/**
 * Runs a batch's work in one transaction and ends it: commit, or rollback when the work asked for
 * it or threw. {@link PostgresBatchStore} is the real one, on a {@code BatchTransactionBoundary}.
 */
public interface BatchTransactions {

  /** The work of one transaction, on its store; {@code rollbackOnly} makes the end a rollback. */
  @FunctionalInterface
  interface Work<T> {
    T run(BatchStore store, Runnable rollbackOnly) throws SQLException;
  }

  <T> T inTransaction(Work<T> work) throws SQLException;
}
