package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.Outcome;
import java.time.Duration;

/**
 * A failed attempt to record: the error text, an optional delay, and whether it is dead at once.
 */
record Failure(String eventId, String error, Duration delay, boolean dead) {

  private static final int MAX_ERROR_LENGTH = 4000;

  static Failure of(String eventId, Outcome outcome) {
    return new Failure(
        eventId,
        truncate(outcome.reason()),
        outcome.retryAfter(),
        outcome.kind() == Outcome.Kind.DEAD);
  }

  static Failure of(String eventId, Throwable error) {
    String message = error.getMessage();
    return of(eventId, error.getClass().getName() + (message == null ? "" : ": " + message));
  }

  static Failure of(String eventId, String error) {
    return new Failure(eventId, truncate(error), null, false);
  }

  private static String truncate(String text) {
    if (text == null) {
      return null;
    }
    return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH);
  }
}
