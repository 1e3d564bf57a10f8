package dev.pginbox.inbox;

import java.time.Duration;
import java.util.Objects;

/**
 * What became of one message, returned by a handler (outcomes are values, not exceptions).
 *
 * <ul>
 *   <li>{@link #processed()}: marked processed in the batch's transaction;
 *   <li>{@link #skipped(String)}: marked processed too, but counted as skipped (nothing to do);
 *   <li>{@link #retry(String)} / {@link #retryAfter(Duration, String)}: retry_count + 1, error
 *       kept, next attempt after the inbox's backoff (or the given delay); a dead letter once max
 *       retries is reached;
 *   <li>{@link #dead(String)}: a dead letter at once, whatever the retry count.
 * </ul>
 */
public record Outcome(Kind kind, String reason, Duration retryAfter) {

  public enum Kind {
    PROCESSED,
    SKIPPED,
    RETRY,
    DEAD
  }

  private static final Outcome PROCESSED = new Outcome(Kind.PROCESSED, null, null);

  public Outcome {
    Objects.requireNonNull(kind, "kind");
    if (retryAfter != null && (kind != Kind.RETRY || retryAfter.isNegative())) {
      throw new InvalidInboxArgumentException(
          "retryAfter needs a RETRY outcome and a non-negative delay", null);
    }
  }

  public static Outcome processed() {
    return PROCESSED;
  }

  public static Outcome skipped(String reason) {
    return new Outcome(Kind.SKIPPED, reason, null);
  }

  public static Outcome retry(String error) {
    return new Outcome(Kind.RETRY, error, null);
  }

  public static Outcome retryAfter(Duration delay, String error) {
    return new Outcome(Kind.RETRY, error, Objects.requireNonNull(delay, "delay"));
  }

  public static Outcome dead(String error) {
    return new Outcome(Kind.DEAD, error, null);
  }

  /** True when the message ends up marked processed (processed or skipped). */
  public boolean marksProcessed() {
    return kind == Kind.PROCESSED || kind == Kind.SKIPPED;
  }
}
