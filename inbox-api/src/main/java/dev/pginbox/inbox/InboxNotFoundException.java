package dev.pginbox.inbox;

/** The named inbox does not exist (was never created, or was dropped). */
public class InboxNotFoundException extends InboxException {
  public InboxNotFoundException(String message, String inbox, Throwable cause) {
    super(message, inbox, cause);
  }
}
