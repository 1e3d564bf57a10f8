package dev.pginbox.inbox;

import java.time.Duration;

/**
 * A budget a worker asks before every claim: how many messages it may claim now. A send-rate limit,
 * a quota of a downstream service or a memory budget can throttle a worker here, before messages
 * are claimed, instead of holding a claimed batch (and its row locks) while waiting.
 *
 * <p>Before a claim a processor calls {@link #acquire}, and claims at most what it was granted;
 * right after the claim it gives back with {@link #release} what the claim did not use (fewer
 * messages were waiting, or none). Permits for messages that were claimed are not given back,
 * whatever their handler did: a claimed message used its permit. Processors call both methods
 * concurrently, so an implementation must be thread-safe.
 */
public interface ClaimPermits {

  /** No budget: every claim may take a full batch. */
  ClaimPermits UNLIMITED = (max, wait) -> max;

  /**
   * Waits up to {@code wait} for permission to claim; returns how many messages may be claimed now,
   * between 1 and {@code max}, or 0 when none were granted within {@code wait} (the worker then
   * asks again, unless it is stopping, so a long wait never delays a stop by more than {@code
   * wait}).
   *
   * @param max the most the worker can claim now (its batch size)
   * @throws InterruptedException when the worker is stopping: return or throw promptly
   */
  int acquire(int max, Duration wait) throws InterruptedException;

  /**
   * Gives back {@code unused} permits (between 1 and the last grant) that a claim did not use.
   * Never called with 0.
   */
  default void release(int unused) {}
}
