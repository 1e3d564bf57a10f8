package dev.pginbox.inbox.postgres.internal;

import dev.pginbox.inbox.InboxAlreadyExistsException;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import java.sql.SQLException;

/**
 * Turns database errors into the inbox's exceptions by SQLSTATE, keeping the server's message
 * (which names the inbox, column or value) and the cause.
 */
public final class SqlErrors {

  private SqlErrors() {}

  /** The {@link InboxException} for {@code error} (any exception; its cause chain is searched). */
  public static InboxException translate(
      Throwable error, String action, String inbox, String eventId) {
    if (error instanceof InboxException inboxException) {
      return inboxException;
    }
    SQLException sql = sqlException(error);
    String state = sql == null ? null : sql.getSQLState();
    String message = action + " failed: " + (sql == null ? error.getMessage() : sql.getMessage());
    if (state == null) {
      return new InboxException(message, inbox, eventId, error);
    }
    switch (state) {
      case "22023": // invalid_parameter_value
      case "42703": // undefined_column
      case "42P01": // undefined_table (tracking a table that does not exist)
      case "22P02": // invalid_text_representation (e.g. a payload that is not JSON)
      case "42804": // datatype_mismatch (a column of the wrong type)
      case "42809": // wrong_object_type (tracking a view)
        return new InvalidInboxArgumentException(message, inbox, error);
      case "42704": // undefined_object
        return new InboxNotFoundException(message, inbox, error);
      case "42710": // duplicate_object
      case "42P07": // duplicate_table
        return new InboxAlreadyExistsException(message, inbox, error);
      default:
        return new InboxException(message + " (SQLSTATE " + state + ")", inbox, eventId, error);
    }
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
