package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.ClaimPermits;

/**
 * The claim permits an order holds. What the claim did not use goes back right after the claim, not
 * after the batch: an empty claim may wait for a held head before its transaction ends.
 */
final class PermitGrant {

  private final ClaimPermits permits;
  private int held;

  PermitGrant(ClaimPermits permits, int held) {
    this.permits = permits;
    this.held = held;
  }

  /** Gives back all but {@code used} of the permits held (nothing if no more are held). */
  void keep(int used) {
    if (held > used) {
      permits.release(held - used);
      held = used;
    }
  }
}
