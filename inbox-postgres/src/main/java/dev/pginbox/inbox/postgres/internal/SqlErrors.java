package dev.pginbox.inbox.postgres.internal;

import dev.pginbox.inbox.InboxAlreadyExistsException;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;
import org.postgresql.util.PSQLException;

/**
 * Turns database errors into the inbox's exceptions by SQLSTATE, keeping the server's message
 * (which names the inbox, column or value), the SQLSTATE, whether it is transient, and the cause.
 */
public final class SqlErrors {

  /**
   * Single SQLSTATEs after which the same call may succeed if made again (classes 08 and 53 are
   * transient as a whole, see {@link #isTransient(String)}).
   */
  private static final Set<String> TRANSIENT_STATES =
      Set.of(
          "40001", // serialization_failure
          "40P01", // deadlock_detected
          "55P03", // lock_not_available (lock_timeout)
          "57014", // query_canceled (statement_timeout, pg_cancel_backend)
          "57P01", // admin_shutdown (pg_terminate_backend, smart or fast shutdown)
          "57P02", // crash_shutdown
          "57P03", // cannot_connect_now (starting up, shutting down, in recovery)
          "57P05", // idle_session_timeout
          "25P03", // idle_in_transaction_session_timeout
          "25P04", // transaction_timeout (PostgreSQL 17+)
          "25006"); // read_only_sql_transaction: a standby, before or during a failover

  /** invalid_text_representation and invalid_json_text: where a bad payload is reported. */
  private static final Set<String> INVALID_JSON_STATES = Set.of("22P02", "22032");

  private SqlErrors() {}

  private static String primaryMessage(SQLException sql) {
    if (sql instanceof PSQLException p && p.getServerErrorMessage() != null) {
      return p.getServerErrorMessage().getMessage();
    }
    return "invalid input (SQLSTATE " + sql.getSQLState() + ")";
  }

  /** The {@link InboxException} for {@code error} (any exception; its cause chain is searched). */
  public static InboxException translate(
      Throwable error, String action, String inbox, String eventId) {
    if (error instanceof InboxException inboxException) {
      return inboxException;
    }
    SQLException sql = sqlException(error);
    String state = sql == null ? null : sql.getSQLState();
    String message = action + " failed: " + (sql == null ? error.getMessage() : sql.getMessage());
    boolean transientFailure = isTransient(state) || hasTransientCause(error);
    if (state == null) {
      return new InboxException(message, inbox, eventId, error, null, transientFailure);
    }
    if (INVALID_JSON_STATES.contains(state)) {
      // A payload that is not JSON: the server's detail and context quote the payload, so only the
      // primary message (which names the type, not the value) goes into the message and the cause.
      String primary = primaryMessage(sql);
      return new InvalidInboxArgumentException(
          action + " failed: " + primary, inbox, new SQLException(primary, state), state);
    }
    switch (state) {
      case "54000": // program_limit_exceeded (a payload over the inbox's maximum size)
      case "22023": // invalid_parameter_value
      case "42703": // undefined_column
      case "42P01": // undefined_table (tracking a table that does not exist)
      case "42804": // datatype_mismatch (a column of the wrong type)
      case "42809": // wrong_object_type (tracking a view)
        return new InvalidInboxArgumentException(message, inbox, error, state);
      case "42704": // undefined_object
        return new InboxNotFoundException(message, inbox, error, state);
      case "42710": // duplicate_object
      case "42P07": // duplicate_table
        return new InboxAlreadyExistsException(message, inbox, error, state);
      default:
        return new InboxException(
            message + " (SQLSTATE " + state + ")", inbox, eventId, error, state, transientFailure);
    }
  }

  /**
   * True for a SQLSTATE that says nothing about the statement itself: the connection is gone or
   * going (class 08, shutdowns, session timeouts), the transaction lost a race (serialization
   * failure, deadlock), a lock or statement timeout, the server is short of a resource (class 53:
   * too many connections, out of memory, disk full), or the server is read-only (a standby).
   */
  public static boolean isTransient(String sqlState) {
    return sqlState != null
        && (sqlState.startsWith("08")
            || sqlState.startsWith("53")
            || TRANSIENT_STATES.contains(sqlState));
  }

  /**
   * A JDBC driver or pool that says so by the exception's type (a pool's timeout waiting for a
   * connection, a driver's I/O failure without a SQLSTATE).
   */
  private static boolean hasTransientCause(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
        return true;
      }
    }
    return false;
  }

  private static SQLException sqlException(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }
}
