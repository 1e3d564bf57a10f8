package dev.pginbox.inbox.postgres.internal.worker.connection;

import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Reads what a failure says about whose fault it is: a lost connection (nobody's: the batch goes
 * back untouched) or the database's set-up (never the message's: it stays pending), from the
 * SQLSTATE of the first {@link SQLException} in the cause chain.
 */
public final class SqlStates {

  private SqlStates() {}

  /** The first SQLException in the cause chain of {@code error}, or null. */
  static SQLException sqlException(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /** The SQLSTATE of the first SQLException in the cause chain, or null. */
  public static String of(Throwable error) {
    SQLException sql = sqlException(error);
    return sql == null ? null : sql.getSQLState();
  }

  /**
   * Class 08 (connection exception), the operator interventions that end a session, and the
   * server-side timeouts that end one (idle in transaction 25P03; transaction_timeout 25P04, PG
   * 17+).
   */
  public static boolean isConnectionLoss(String state) {
    return state != null
        && (state.startsWith("08")
            || state.equals("57P01")
            || state.equals("57P02")
            || state.equals("57P03")
            || state.equals("25P03")
            || state.equals("25P04"));
  }

  /**
   * Whether the server refused because it is a standby (in recovery, read-only): SQLSTATE 25006
   * ({@code cannot execute UPDATE in a read-only transaction}, {@code cannot execute LISTEN during
   * recovery}) or a recovery error without that state ({@code cannot assign TransactionIds during
   * recovery}). The connection is fine; the server is the wrong one.
   */
  public static boolean isStandby(Throwable error) {
    SQLException sql = sqlException(error);
    if (sql == null) {
      return false;
    }
    String message = sql.getMessage();
    return "25006".equals(sql.getSQLState())
        || (message != null && message.contains("during recovery"));
  }

  /**
   * The server's primary message and SQLSTATE, for a log line: never the statement or the context
   * (a PL/pgSQL error's context quotes the whole SQL statement it ran).
   */
  public static String describe(Throwable error) {
    SQLException sql = sqlException(error);
    if (sql instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
      ServerErrorMessage server = psql.getServerErrorMessage();
      return server.getMessage() + " (SQLSTATE " + server.getSQLState() + ")";
    }
    if (sql != null) {
      return sql.getMessage()
          + (sql.getSQLState() == null ? "" : " (SQLSTATE " + sql.getSQLState() + ")");
    }
    return String.valueOf(error.getMessage());
  }

  /**
   * The driver ran out of memory reading a result (SQLSTATE 53200 raised by pgJDBC itself, not by
   * the server): the rows were too big for this JVM, which says nothing about the database.
   */
  public static boolean isClientOutOfMemory(Throwable error) {
    SQLException sql = sqlException(error);
    return sql instanceof PSQLException psql
        && "53200".equals(psql.getSQLState())
        && psql.getServerErrorMessage() == null;
  }

  /**
   * The database's set-up, not the message: missing privileges, a missing table, column, function,
   * schema, database or inbox, a read-only transaction (a standby), configuration errors (class
   * F0), insufficient resources (53), system errors (58), authorization (28). Such an error is the
   * same for every message, so charging the message would only empty the queue into the DLQ.
   */
  public static boolean isEnvironmental(String state) {
    if (state == null) {
      return false;
    }
    return switch (state) {
      case "42501", "42P01", "42703", "42704", "42883", "3F000", "3D000", "25006" -> true;
      default ->
          state.startsWith("F0")
              || state.startsWith("53")
              || state.startsWith("58")
              || state.startsWith("28");
    };
  }
}
