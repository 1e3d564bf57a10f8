package dev.pginbox.inbox;

import java.util.Optional;

/**
 * The root of every error the inbox raises. Unchecked; carries the inbox (and event) it concerns
 * and, for a failure the database reported, its SQLSTATE and whether it is transient.
 */
public class InboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String inbox;
  private final String eventId;
  private final String sqlState;
  private final boolean transientFailure;

  /**
   * @param sqlState the database's SQLSTATE (five characters), or null when the database did not
   *     report the failure
   * @param transientFailure true when the same call may succeed if simply made again (see {@link
   *     #isTransient()})
   */
  public InboxException(
      String message,
      String inbox,
      String eventId,
      Throwable cause,
      String sqlState,
      boolean transientFailure) {
    super(message, cause);
    this.inbox = inbox;
    this.eventId = eventId;
    this.sqlState = sqlState;
    this.transientFailure = transientFailure;
  }

  public InboxException(String message, String inbox, String eventId, Throwable cause) {
    this(message, inbox, eventId, cause, null, false);
  }

  public InboxException(String message, String inbox, Throwable cause) {
    this(message, inbox, null, cause);
  }

  public InboxException(String message, String inbox) {
    this(message, inbox, null, null);
  }

  /** The inbox concerned, when the error is about one. */
  public Optional<String> inbox() {
    return Optional.ofNullable(inbox);
  }

  /** The message concerned, when the error is about one. */
  public Optional<String> eventId() {
    return Optional.ofNullable(eventId);
  }

  /** The SQLSTATE the database reported (for example {@code 40001}), when it reported one. */
  public Optional<String> sqlState() {
    return Optional.ofNullable(sqlState);
  }

  /**
   * True when the failure says nothing about the call itself and the same call may succeed if made
   * again, on a new connection where the old one is gone: a lost connection, a server shutting down
   * or restarting, a serialization failure or deadlock, a lock or statement timeout, too many
   * connections, a read-only server (a standby, before or during a failover). Sending is idempotent
   * by event id, so a producer may retry a transient failure of {@code send}/{@code sendAll} with
   * the same messages; inside a transaction of its own, it retries the whole transaction.
   */
  public boolean isTransient() {
    return transientFailure;
  }
}
