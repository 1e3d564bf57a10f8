package dev.pginbox.inbox.postgres.spi;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where the transaction of a worker's batch begins and ends. The worker runs the claim, the handler
 * and the outcome marks of one batch as one {@link Work}, inside {@link #inTransaction}: the work's
 * connection carries the transaction, and the boundary commits it when the work returns normally
 * and did not ask for a rollback, and rolls it back otherwise.
 *
 * <p>Without a boundary of its own the worker keeps one connection per processor from its {@code
 * DataSource}, with autocommit off, and commits or rolls back on it. A boundary replaces that, for
 * example to run each batch in a transaction of an application framework, so that the handler's
 * data-access code joins the batch's transaction through the framework instead of {@code
 * InboxTransaction.unwrap}.
 *
 * <p>What an implementation must do:
 *
 * <ul>
 *   <li>Begin a new transaction, on a connection with autocommit off and isolation READ COMMITTED
 *       (the claim's lease guard relies on it), and call {@code work} once, on the calling thread.
 *   <li>Commit when {@code work} returns normally and did not call {@code rollbackOnly}; roll back
 *       otherwise, then return the work's result or rethrow its exception unchanged.
 *   <li>Let failures of the connection reach the caller: an {@link SQLException} (or an unchecked
 *       exception whose cause chain holds one) keeps its SQLSTATE, which is how the worker tells a
 *       lost connection from a failed batch.
 * </ul>
 *
 * <p>The worker may end the transaction itself from another thread when a batch passes its
 * processing timeout (it rolls the handler's work back to a savepoint, records the outcome and
 * commits on the same connection, then closes the connection): ending the transaction afterwards
 * fails, and the boundary reports that failure like any other. Processors call the boundary
 * concurrently, so it must be thread-safe.
 */
@FunctionalInterface
public interface BatchTransactionBoundary {

  /** Runs {@code work} in a new transaction and ends it; see the class comment. */
  <T> T inTransaction(Work<T> work) throws SQLException;

  /** One batch's work inside the transaction. */
  @FunctionalInterface
  interface Work<T> {
    /**
     * @param connection the transaction's connection; do not commit, roll back or close it
     * @param rollbackOnly call it to have the transaction rolled back although the work returns
     */
    T run(Connection connection, Runnable rollbackOnly) throws SQLException;
  }
}
