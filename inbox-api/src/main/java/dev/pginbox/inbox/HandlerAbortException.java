package dev.pginbox.inbox;

/**
 * Thrown by a handler that cannot go on at all (its output is gone, say). The worker rolls the
 * batch back without recording a failure for any message, and stops; the messages stay pending.
 */
public class HandlerAbortException extends InboxException {

  private static final long serialVersionUID = 1L;

  public HandlerAbortException(String message, Throwable cause) {
    super(message, null, cause);
  }
}
