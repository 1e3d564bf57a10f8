package dev.pginbox.inbox.testing;

/**
 * What became of one message, with assertions that say what was expected and what was found.
 *
 * @param retryCount failed attempts recorded
 * @param error the last failure's error, or null
 */
public record MessageState(
    String inbox, String eventId, boolean processed, int retryCount, String error, int maxRetries) {

  /** Processed and never failed. */
  public boolean isProcessed() {
    return processed;
  }

  /** Failed at least once, waiting for its next attempt. */
  public boolean isRetrying() {
    return !processed && retryCount > 0 && retryCount < maxRetries;
  }

  public boolean isDeadLetter() {
    return !processed && retryCount >= maxRetries;
  }

  /** Not handled yet (or given back untouched). */
  public boolean isWaiting() {
    return !processed && retryCount == 0;
  }

  public MessageState assertProcessed() {
    return check(processed, "processed");
  }

  public MessageState assertWaiting() {
    return check(isWaiting(), "waiting, never attempted");
  }

  /** Failed {@code attempts} times so far and waiting for a retry. */
  public MessageState assertRetrying(int attempts) {
    return check(
        isRetrying() && retryCount == attempts,
        "retrying after " + attempts + " failed attempt(s)");
  }

  /** A dead letter whose error contains {@code errorPart}. */
  public MessageState assertDeadLetter(String errorPart) {
    return check(
        isDeadLetter() && error != null && error.contains(errorPart),
        "a dead letter with an error containing '" + errorPart + "'");
  }

  private MessageState check(boolean ok, String expected) {
    if (!ok) {
      throw new AssertionError(
          "expected message "
              + eventId
              + " of inbox "
              + inbox
              + " to be "
              + expected
              + ", but it is "
              + this);
    }
    return this;
  }

  @Override
  public String toString() {
    String state =
        processed
            ? "processed"
            : isDeadLetter() ? "a dead letter" : isRetrying() ? "retrying" : "waiting";
    return state
        + " (retry_count "
        + retryCount
        + " of "
        + maxRetries
        + (error == null ? "" : ", error '" + error + "'")
        + ")";
  }
}
