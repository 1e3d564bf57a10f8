package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.Outcome;
import java.time.Duration;

/**
 * A failed attempt to record: the error text, an optional delay, and whether it is dead at once.
 */
record Failure(String eventId, String error, Duration delay, boolean dead) {

  static Failure of(String eventId, Outcome outcome) {
    return new Failure(
        eventId,
        ErrorText.capped(outcome.reason()),
        outcome.retryAfter(),
        outcome.kind() == Outcome.Kind.DEAD);
  }

  /** The exception's first line and a summary of its stack (see {@link ErrorText}). */
  static Failure of(String eventId, Throwable error) {
    return of(eventId, ErrorText.of(error));
  }

  static Failure of(String eventId, String error) {
    return new Failure(eventId, ErrorText.capped(error), null, false);
  }
}
