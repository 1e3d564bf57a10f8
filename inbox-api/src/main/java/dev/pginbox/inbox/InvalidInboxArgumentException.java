package dev.pginbox.inbox;

/** A name, column, option or value was rejected before anything was changed. */
public class InvalidInboxArgumentException extends InboxException {

  private static final long serialVersionUID = 1L;

  public InvalidInboxArgumentException(String message, String inbox, Throwable cause) {
    super(message, inbox, cause);
  }

  /** Reported by the database with {@code sqlState}; never transient. */
  public InvalidInboxArgumentException(
      String message, String inbox, Throwable cause, String sqlState) {
    super(message, inbox, null, cause, sqlState, false);
  }

  public InvalidInboxArgumentException(String message, String inbox) {
    super(message, inbox);
  }
}
