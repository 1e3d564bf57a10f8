package dev.pginbox.inbox;

/** An inbox of that name exists, or its table name is taken by a table that is not an inbox. */
public class InboxAlreadyExistsException extends InboxException {

  private static final long serialVersionUID = 1L;

  public InboxAlreadyExistsException(String message, String inbox, Throwable cause) {
    super(message, inbox, cause);
  }

  /** Reported by the database with {@code sqlState}; never transient. */
  public InboxAlreadyExistsException(
      String message, String inbox, Throwable cause, String sqlState) {
    super(message, inbox, null, cause, sqlState, false);
  }
}
