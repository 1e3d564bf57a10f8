package dev.pginbox.inbox;

/** The named inbox does not exist (was never created, or was dropped). */
public class InboxNotFoundException extends InboxException {

  private static final long serialVersionUID = 1L;

  public InboxNotFoundException(String message, String inbox, Throwable cause) {
    super(message, inbox, cause);
  }
}
