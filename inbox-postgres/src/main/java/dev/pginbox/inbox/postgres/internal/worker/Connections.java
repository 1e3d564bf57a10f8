package dev.pginbox.inbox.postgres.internal.worker;

import java.sql.SQLException;

/** Tells a lost connection from an error of the statement itself. */
final class Connections {

  private Connections() {}

  static boolean isConnectionFailure(SQLException e, WorkerConnection wc) {
    if (isConnectionState(e.getSQLState())) {
      return true;
    }
    try {
      return wc.connection().isClosed();
    } catch (SQLException closed) {
      return true;
    }
  }

  /**
   * Class 08 (connection exception), the operator interventions that end a session, and the
   * server-side timeouts that end one (idle in transaction 25P03; transaction_timeout 25P04, PG
   * 17+).
   */
  static boolean isConnectionState(String state) {
    return state != null
        && (state.startsWith("08")
            || state.equals("57P01")
            || state.equals("57P02")
            || state.equals("57P03")
            || state.equals("25P03")
            || state.equals("25P04"));
  }
}
