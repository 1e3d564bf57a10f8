package dev.pginbox.inbox.postgres.internal.worker.wake;

import dev.pginbox.inbox.WorkerListener.WakeUpCause;

/**
 * The coordinator's next move after a wake-up: whether to look, and the cause to report (null:
 * none).
 */
record Look(boolean look, WakeUpCause cause) {
  /**
   * A (re)connection or poll look is no hint: it counts (the count is what notices a dead
   * connection), a poll during a drain excepted.
   */
  boolean counts() {
    return cause == WakeUpCause.CONNECTED || cause == WakeUpCause.POLL;
  }
}
