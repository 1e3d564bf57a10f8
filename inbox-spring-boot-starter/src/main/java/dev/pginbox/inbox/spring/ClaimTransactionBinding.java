package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxTransaction;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Exposes the claim's transaction to Spring while a handler runs: the worker's connection is bound
 * to the application's {@link DataSource} as the current transaction's connection, exactly as
 * {@code DataSourceTransactionManager} binds its own. {@code JdbcTemplate}, {@code JdbcClient},
 * Spring Data JDBC and {@code @Transactional} methods (propagation REQUIRED) then run on the
 * claim's connection and in its transaction; {@code REQUIRES_NEW} still gets a transaction of its
 * own.
 *
 * <p>A participating {@code @Transactional} method that fails marks the transaction rollback-only;
 * even if the handler catches the exception, the message then counts as failed, as it would in any
 * Spring transaction.
 */
final class ClaimTransactionBinding implements HandlerScope {

  private final DataSource dataSource;

  ClaimTransactionBinding(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  @SuppressWarnings("overloads") // see HandlerScope
  public MessageHandler around(MessageHandler handler, String inbox) {
    return (message, tx) -> {
      ClaimConnectionHolder holder = bind(tx);
      Outcome outcome;
      try {
        outcome = handler.handle(message, tx);
      } finally {
        TransactionSynchronizationManager.unbindResource(dataSource);
      }
      requireNotRollbackOnly(holder, inbox);
      return outcome;
    };
  }

  @Override
  @SuppressWarnings("overloads") // see HandlerScope
  public BatchHandler around(BatchHandler handler, String inbox) {
    return (List<InboxMessage> batch, InboxTransaction tx) -> {
      ClaimConnectionHolder holder = bind(tx);
      BatchResult result;
      try {
        result = handler.handle(batch, tx);
      } finally {
        TransactionSynchronizationManager.unbindResource(dataSource);
      }
      requireNotRollbackOnly(holder, inbox);
      return result;
    };
  }

  private ClaimConnectionHolder bind(InboxTransaction tx) {
    if (TransactionSynchronizationManager.hasResource(dataSource)) {
      throw new InboxException(
          "a transaction of the application's DataSource is already bound to the worker's thread",
          null);
    }
    // Unwrapping also sets the message's savepoint, so a failure undoes only this message.
    ClaimConnectionHolder holder = new ClaimConnectionHolder(tx.unwrap(Connection.class));
    TransactionSynchronizationManager.bindResource(dataSource, holder);
    return holder;
  }

  private static void requireNotRollbackOnly(ClaimConnectionHolder holder, String inbox) {
    if (holder.isRollbackOnly()) {
      throw new InboxException(
          "a @Transactional method called by the handler failed and marked the transaction"
              + " rollback-only",
          inbox);
    }
  }

  /** The claim's connection, in a transaction that the worker (not Spring) commits. */
  private static final class ClaimConnectionHolder extends ConnectionHolder {
    ClaimConnectionHolder(Connection connection) {
      super(connection);
      setTransactionActive(true);
    }
  }
}
