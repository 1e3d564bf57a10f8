package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An order to claim one batch (from the coordinator, or the listener on a notification). It holds a
 * processor slot and reserves batchSize of the counted waiting messages until the claim says how
 * many it got, then that many until the batch's transaction ends (they still look pending to the
 * count meanwhile).
 */
final class Dispatch {

  final DispatchReason reason;

  /** Fewer messages than this and the claim is given back (rolled back) for a count to decide. */
  final int minimum;

  volatile int reservation;

  /** Set by the watchdog: the replacement processor completes this dispatch. */
  volatile boolean timedOut;

  private final AtomicBoolean done = new AtomicBoolean();

  Dispatch(DispatchReason reason, int minimum, int reservation) {
    this.reason = reason;
    this.minimum = minimum;
    this.reservation = reservation;
  }

  /** True the first time only: a dispatch is completed exactly once. */
  boolean complete() {
    return done.compareAndSet(false, true);
  }
}
