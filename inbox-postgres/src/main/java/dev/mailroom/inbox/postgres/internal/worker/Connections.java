package dev.mailroom.inbox.postgres.internal.worker;

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

  /** Class 08 (connection exception) and the operator interventions that end a session. */
  static boolean isConnectionState(String state) {
    return state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
        || state.equals("57P03"));
  }
}
