package dev.pginbox.inbox;

/** The named inbox does not exist (was never created, or was dropped). */
public class InboxNotFoundException extends InboxException {

  private static final long serialVersionUID = 1L;

  public InboxNotFoundException(String message, String inbox, Throwable cause) {
    super(message, inbox, cause);
  }

  /** Reported by the database with {@code sqlState}; never transient. */
  public InboxNotFoundException(String message, String inbox, Throwable cause, String sqlState) {
    super(message, inbox, null, cause, sqlState, false);
  }
}
