package dev.pginbox.inbox.postgres.internal.worker.wake;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The coordinator's mailbox: the listener thread, the processors and stop() post events, the
 * coordinator waits for any of them or a deadline. Events of one kind posted while it was busy fold
 * into one, which is fine: the coordinator counts waiting messages, it does not count events.
 */
public final class Wakeups {

  public enum Event {
    /** A notification arrived on the LISTEN channel. */
    NOTIFY,
    /**
     * Something is claimable: a notification the listener could not hand to a processor itself
     * (none free; already reported as a wake-up by the listener), or a held head another worker
     * released while a processor waited for it.
     */
    HINT,
    /** A connection came (back) up; notifications may have been lost. */
    CONNECTED,
    /** A batch finished and claimed messages: look again, more may be waiting (back to back). */
    BATCH_DONE,
    /** A batch finished with a full batch: more are probably waiting. */
    BATCH_FULL,
    /**
     * A batch finished without claiming anything: a processor is free, but do not count at once.
     */
    SLOT_FREE,
    /** The coordinator itself wants another look (after dispatching a batch). */
    RECHECK,
    STOP
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final EnumSet<Event> pending = EnumSet.noneOf(Event.class);

  public void post(Event event) {
    lock.lock();
    try {
      pending.add(event);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until an event is posted or {@code deadlineNanos} (System.nanoTime) passes; returns and
   * clears the events.
   */
  Set<Event> awaitUntil(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      while (pending.isEmpty()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          break;
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      EnumSet<Event> events = pending.clone();
      pending.clear();
      return events;
    } finally {
      lock.unlock();
    }
  }
}
