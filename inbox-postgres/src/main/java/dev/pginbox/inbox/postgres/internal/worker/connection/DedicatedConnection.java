package dev.pginbox.inbox.postgres.internal.worker.connection;

import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.SQLException;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;

/**
 * The default batch transaction boundary: one connection of a processor's own, taken from the
 * worker's DataSource with autocommit off, kept across batches (its prepared statements with it),
 * and replaced after it failed. Used by one processor thread only.
 */
public final class DedicatedConnection implements BatchTransactionBoundary, AutoCloseable {

  private final Jdbi jdbi;
  private final String inbox;
  private final Duration processingTimeout;
  private WorkerConnection wc;

  /**
   * {@code connection}: an open one to start with (null: opened for the first transaction), whose
   * answers are bounded like those of the ones opened here ({@link ServerBound#answer}).
   */
  public DedicatedConnection(
      Jdbi jdbi, String inbox, Duration processingTimeout, WorkerConnection connection) {
    this.jdbi = jdbi;
    this.inbox = inbox;
    this.processingTimeout = processingTimeout;
    this.wc = connection;
  }

  private WorkerConnection open() throws SQLException {
    return open(jdbi, inbox, processingTimeout);
  }

  /**
   * A processor's own connection: transactional, its answers bounded by {@link ServerBound#answer}.
   */
  static WorkerConnection open(Jdbi jdbi, String inbox, Duration processingTimeout)
      throws SQLException {
    return WorkerConnection.open(jdbi, inbox, true, "processor")
        .answersWithin(ServerBound.answer(processingTimeout));
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws SQLException {
    if (wc == null || wc.isClosed()) {
      close();
      wc = open();
    }
    WorkerConnection current = wc;
    boolean[] rollbackOnly = {false};
    T result;
    try {
      result = work.run(current.connection(), () -> rollbackOnly[0] = true);
    } catch (SQLException | RuntimeException e) {
      endAfterFailure(current, e);
      throw e;
    } catch (Error e) {
      // Out of memory while the driver read a result: what is left of the stream is unknown.
      close();
      throw e;
    }
    try {
      if (rollbackOnly[0]) {
        current.connection().rollback();
      } else {
        current.connection().commit();
      }
    } catch (SQLException | RuntimeException e) {
      endAfterFailure(current, e);
      throw e;
    }
    return result;
  }

  private void endAfterFailure(WorkerConnection current, Exception e) {
    current.rollbackQuietly();
    // A standby keeps refusing on this connection: only a new one can find the primary.
    if (current.isClosed()
        || SqlStates.isConnectionLoss(SqlStates.of(e))
        || SqlStates.isStandby(e)) {
      close();
    }
  }

  /**
   * Checks the open connection, if any ({@link WorkerConnection#ping}); a dead one is closed and
   * the check's exception thrown, so that the caller reports it and then {@link #reopen()}s.
   */
  public void check() throws SQLException {
    if (wc == null) {
      return;
    }
    try {
      wc.ping();
    } catch (SQLException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Opens the connection now unless it is open: the next batch finds it ready. */
  public void reopen() throws SQLException {
    if (wc == null) {
      wc = open();
    }
  }

  @Override
  public void close() {
    if (wc != null) {
      wc.close();
      wc = null;
    }
  }
}
