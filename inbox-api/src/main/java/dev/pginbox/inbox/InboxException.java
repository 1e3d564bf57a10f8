package dev.pginbox.inbox;

import java.util.Optional;

/**
 * The root of every error the inbox raises. Unchecked; carries the inbox (and event) it concerns.
 */
public class InboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String inbox;
  private final String eventId;

  public InboxException(String message, String inbox, String eventId, Throwable cause) {
    super(message, cause);
    this.inbox = inbox;
    this.eventId = eventId;
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
}
