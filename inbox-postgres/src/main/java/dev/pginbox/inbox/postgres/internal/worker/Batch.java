package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A claimed batch while its handler runs. Who ends it is decided once, by compare-and-set: the
 * processor (about to commit), the watchdog (processing timeout) or stop() (grace period over).
 */
final class Batch {

  static final int HANDLING = 0;
  static final int FINISHING = 1;
  static final int TIMED_OUT = 2;
  static final int ABORTED = 3;

  final List<String> eventIds;
  final DispatchReason reason;
  final WorkerConnection connection;
  final Thread thread;
  private final AtomicInteger state = new AtomicInteger(HANDLING);

  Batch(List<String> eventIds, DispatchReason reason, WorkerConnection connection, Thread thread) {
    this.eventIds = eventIds;
    this.reason = reason;
    this.connection = connection;
    this.thread = thread;
  }

  /**
   * The processor's claim to finish the batch itself; false when the watchdog or stop() took it.
   */
  boolean finish() {
    return state.compareAndSet(HANDLING, FINISHING);
  }

  /** Takes the batch away from its processor: closes its connection (the server rolls back). */
  boolean takeAway(int newState) {
    if (!state.compareAndSet(HANDLING, newState)) {
      return false;
    }
    connection.cancel();
    connection.abort();
    thread.interrupt();
    return true;
  }

  boolean takenAway() {
    int s = state.get();
    return s == TIMED_OUT || s == ABORTED;
  }
}
