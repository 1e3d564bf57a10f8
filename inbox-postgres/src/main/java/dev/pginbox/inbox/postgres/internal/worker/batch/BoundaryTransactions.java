package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The batch's transactions on a {@link BatchTransactionBoundary} (the processor's own connection by
 * default): each transaction's connection gets the worker's prepared statements, kept while the
 * boundary hands out the same connection. One per processor thread.
 */
public final class BoundaryTransactions implements BatchTransactions {

  private final BatchTransactionBoundary boundary;
  private final ClaimScope scope;
  private final WorkerOptions options;
  private WorkerConnection statements;
  private PostgresBatchStore store;

  public BoundaryTransactions(
      BatchTransactionBoundary boundary, ClaimScope scope, WorkerOptions options) {
    this.boundary = boundary;
    this.scope = scope;
    this.options = options;
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws SQLException {
    return boundary.inTransaction(
        (connection, rollbackOnly) -> work.run(storeOn(connection), rollbackOnly));
  }

  private BatchStore storeOn(Connection connection) {
    if (statements == null || !statements.wraps(connection)) {
      if (statements != null) {
        statements.close();
      }
      statements = WorkerConnection.borrow(connection, options.inbox());
      store = new PostgresBatchStore(statements, scope, options);
    }
    return store;
  }
}
