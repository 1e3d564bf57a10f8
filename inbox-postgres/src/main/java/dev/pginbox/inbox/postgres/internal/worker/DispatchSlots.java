package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hand-over from the coordinator to the processors of one run: a slot per dispatch in flight,
 * the messages reserved by those dispatches (so a count does not dispatch them twice), and the
 * queue the processors take dispatches from.
 */
final class DispatchSlots {

  /** Put in the queue at stop: wakes the idle processors at once. */
  private static final Dispatch STOP = new Dispatch(DispatchReason.MANUAL, 1, 0);

  private final int batchSize;
  // One dispatch more than processors: the next batch waits in the queue while the current one
  // runs, so counting for it is off the critical path (full batches back to back).
  private final Semaphore slots;
  private final AtomicInteger reserved = new AtomicInteger();
  private final LinkedBlockingQueue<Dispatch> queue = new LinkedBlockingQueue<>();

  DispatchSlots(int concurrency, int batchSize) {
    this.batchSize = batchSize;
    this.slots = new Semaphore(concurrency + 1);
  }

  boolean hasFree() {
    return slots.availablePermits() > 0;
  }

  /** Messages held by dispatches in flight: counted as waiting, but already someone's. */
  int reserved() {
    return reserved.get();
  }

  /** Queues a batch for a free processor; false (and nothing queued) when no slot is free. */
  boolean dispatch(DispatchReason reason, int minimum) {
    if (!slots.tryAcquire()) {
      return false;
    }
    reserved.addAndGet(batchSize);
    queue.add(new Dispatch(reason, minimum, batchSize));
    return true;
  }

  /**
   * The next dispatch for a processor; null once {@code stopped} is set or {@link #stop()} was
   * called.
   */
  Dispatch next(AtomicBoolean stopped) throws InterruptedException {
    while (!stopped.get()) {
      Dispatch d = queue.poll(1, TimeUnit.SECONDS);
      if (d == STOP) {
        queue.add(STOP); // for the next processor
        return null;
      }
      if (d != null) {
        return d;
      }
    }
    return null;
  }

  /** The claim said how many messages the dispatch got: reserve that many instead of a batch. */
  void claimed(Dispatch d, int count) {
    int before = d.reservation;
    d.reservation = count;
    reserved.addAndGet(count - before);
  }

  /** Gives the dispatch's slot and reservation back; false when it was completed already. */
  boolean done(Dispatch d) {
    if (!d.complete()) {
      return false;
    }
    reserved.addAndGet(-d.reservation);
    slots.release();
    return true;
  }

  void stop() {
    queue.add(STOP);
  }
}
