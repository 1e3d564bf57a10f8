package dev.pginbox.inbox.operations;

import java.time.Instant;
import java.util.Objects;

/**
 * One failed attempt of a message, from its failure history ({@code inbox.inbox_message}'s {@code
 * attempts}): a message keeps its last five, each error cut to 500 characters.
 *
 * @param attempt the attempt's number (1 for the first failure)
 * @param at when the failure was recorded
 * @param error the error, at most 500 characters (the message's {@code error} has the last in full)
 */
public record FailedAttempt(int attempt, Instant at, String error) {

  /** How many attempts a message keeps. */
  public static final int KEPT = 5;

  public FailedAttempt {
    Objects.requireNonNull(at, "at");
  }
}
