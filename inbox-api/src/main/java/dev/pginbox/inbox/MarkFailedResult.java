package dev.pginbox.inbox;

/** What {@code inbox.mark_failed} did to a message. */
public enum MarkFailedResult {
  /** The failure was counted; the message is retried after a backoff. */
  RETRY,
  /** The failure reached the inbox's max retries: the message is a dead letter. */
  DEAD,
  /** Nothing changed: no such message, already dead, or processed by another transaction. */
  UNCHANGED
}
