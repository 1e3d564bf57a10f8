package dev.pginbox.inbox.postgres.internal.worker.wake;

import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerSql;
import java.sql.SQLException;

/**
 * How stop wakes the listener, which blocks in a read, without cutting its connection (a pool lent
 * by the application evicts a cut connection, with a warning and a stack trace). The listener also
 * listens on a channel of its own, named after its backend, and the coordinator notifies it there
 * on its way out. A listener that starts listening after that sees the stop itself, before it
 * waits.
 */
public final class ListenerWake {

  private volatile String channel;

  /**
   * The listener's own channel on backend {@code pid}. The hyphen keeps it apart from every inbox's
   * channel ({@code inbox_<name>}).
   */
  static String channelOf(int pid) {
    return "inbox-stop-" + pid;
  }

  /** From the listener, once it listens on {@code channel}. */
  void listening(String channel) {
    this.channel = channel;
  }

  /** From the coordinator, on its own connection, once it has seen the stop. */
  void wake(WorkerConnection wc) throws SQLException {
    String c = channel;
    if (c != null) {
      wc.statement(WorkerSql.WAKE_LISTENER).setString("channel", c).executeQuery().close();
    }
  }
}
