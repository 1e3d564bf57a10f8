package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import org.jdbi.v3.core.Handle;

/**
 * The transaction handed to a handler. For a {@link dev.pginbox.inbox.MessageHandler} the
 * per-message savepoint is set lazily, when the handler first unwraps the transaction: every
 * database write has to go through {@link #unwrap}, so a handler that never touches the database
 * needs no savepoint, and the success path costs no round trip per message.
 */
final class MessageTransaction implements InboxTransaction {

  private final WorkerConnection wc;
  private final boolean savepoints;
  private Savepoint savepoint;

  MessageTransaction(WorkerConnection wc, boolean savepoints) {
    this.wc = wc;
    this.savepoints = savepoints;
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    Object target;
    if (type.isInstance(wc.handle())) {
      target = wc.handle();
    } else if (type.isInstance(wc.connection())) {
      target = wc.connection();
    } else {
      throw new InboxException(
          "this transaction unwraps to "
              + Handle.class.getName()
              + " or "
              + Connection.class.getName()
              + ", not "
              + type.getName(),
          null);
    }
    if (savepoints && savepoint == null) {
      try {
        savepoint = wc.connection().setSavepoint();
      } catch (SQLException e) {
        throw new InboxException("cannot set the message's savepoint", null, e);
      }
    }
    return type.cast(target);
  }

  /** Undoes the handler's writes for this message (nothing to undo without a savepoint). */
  void rollback() throws SQLException {
    if (savepoint != null) {
      wc.connection().rollback(savepoint);
      wc.connection().releaseSavepoint(savepoint);
    }
  }

  /** Keeps the handler's writes; releasing keeps the subtransaction stack flat. */
  void release() throws SQLException {
    if (savepoint != null) {
      wc.connection().releaseSavepoint(savepoint);
    }
  }
}
