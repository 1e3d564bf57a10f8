package dev.pginbox.inbox.postgres.internal.worker.wake;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerOptions;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The hand-over from the coordinator (and the listener) to the processors of one run: orders to
 * claim a batch, a slot per order in flight, and the messages those orders reserve (so a count does
 * not dispatch them twice). When an order is done it tells the coordinator what to do next.
 */
public final class ClaimQueue {

  /**
   * An order to claim one batch. It holds a slot and reserves batchSize of the counted waiting
   * messages until the claim says how many it got, then that many until the batch's transaction
   * ends (they still look pending to the count meanwhile).
   */
  public static final class Order {
    private final DispatchReason reason;
    private final int minimum;

    private volatile int reservation;
    private final AtomicBoolean done = new AtomicBoolean();

    private Order(DispatchReason reason, int minimum, int reservation) {
      this.reason = reason;
      this.minimum = minimum;
      this.reservation = reservation;
    }

    /** Null: decided by the claim (a full batch MAX_REACHED, fewer TIMEOUT). */
    public DispatchReason reason() {
      return reason;
    }

    /** Fewer messages than this and the claim is given back (rolled back) for a count to decide. */
    public int minimum() {
      return minimum;
    }
  }

  /** Put in the queue at stop: wakes the idle processors at once. */
  private static final Order STOP = new Order(DispatchReason.MANUAL, 1, 0);

  private final int batchSize;
  private final Wakeups wakeups;
  // One order more than processors: the next batch waits in the queue while the current one runs
  // (full batches back to back, the spare order given on the last one's hint, without a count).
  private final Semaphore slots;
  private final AtomicInteger reserved = new AtomicInteger();

  /**
   * How many messages the order that finished last claimed (0 when it failed). Set before its slot
   * is given back, so a look that finds the slot free sees it even before the order's event is
   * posted.
   */
  private volatile int lastClaimed;

  /**
   * The inbox is ordered and any waiting message makes a batch, as the coordinator read at its last
   * (re)connection: a batch that comes back short but not empty is followed by a claim, not a
   * count, and the next claim asks for about what it got (workers that share an ordered inbox's
   * heads get short batches all the time, and a count there costs a claim).
   */
  private volatile boolean claimsOnShortBatch;

  private final boolean claimsOnHint;

  private final LinkedBlockingQueue<Order> queue = new LinkedBlockingQueue<>();

  /** {@code processors}: the run's processor threads; one order more can wait in the queue. */
  public ClaimQueue(int processors, WorkerOptions options, Wakeups wakeups) {
    this.batchSize = options.batchSize();
    this.claimsOnHint = options.batchTimeout().isZero() || options.batchSize() == 1;
    this.wakeups = wakeups;
    this.slots = new Semaphore(processors + 1);
  }

  /**
   * Whether any waiting message makes a batch to send at once (zero batch timeout, or batches of
   * one), so a notification can go straight to a processor without a count.
   */
  boolean claimsOnHint() {
    return claimsOnHint;
  }

  boolean hasFreeSlot() {
    return slots.availablePermits() > 0;
  }

  /** A processor has no order: a slot is free beside the spare order's. */
  boolean hasIdleProcessor() {
    return slots.availablePermits() > 1;
  }

  /** Messages held by orders in flight: counted as waiting, but already someone's. */
  int reserved() {
    return reserved.get();
  }

  /**
   * How many messages the order that finished last claimed. Read it after {@link #hasFreeSlot}: a
   * slot seen free makes the count of the order that gave it back visible, before its event.
   */
  int lastClaimed() {
    return lastClaimed;
  }

  public boolean claimsOnShortBatch() {
    return claimsOnShortBatch;
  }

  /**
   * On an ordered inbox where any waiting message makes a batch, a batch that came back short but
   * not empty is followed by the next claim, not by a count: there a count costs what a claim does,
   * and workers that share the heads get short batches all the time (each holds part of them),
   * where a count after each doubled the server's work. On a plain inbox a short batch means the
   * claim took what was there: the count is cheaper than a claim that finds nothing, and runs on
   * the coordinator's connection while the processor is free for the next notification (a claim
   * after every short batch put the tail at 1,000 msg/s from 4-7 ms to 15-33 ms).
   */
  public void claimsOnShortBatch(boolean claimsOnShortBatch) {
    this.claimsOnShortBatch = claimsOnShortBatch;
  }

  /** Queues an order for a free processor; false (and nothing queued) when no slot is free. */
  boolean offer(DispatchReason reason, int minimum) {
    if (!slots.tryAcquire()) {
      return false;
    }
    reserved.addAndGet(batchSize);
    queue.add(new Order(reason, minimum, batchSize));
    return true;
  }

  /** What a processor does while it waits for an order (about once a second). */
  public interface Idle {
    void tick() throws InterruptedException;
  }

  /** The next order for a processor; null once the run stops. */
  public Order next(BooleanSupplier stopping, Idle idle) throws InterruptedException {
    while (!stopping.getAsBoolean()) {
      Order order = queue.poll(1, TimeUnit.SECONDS);
      if (order == STOP) {
        queue.add(STOP); // for the next processor
        return null;
      }
      if (order != null) {
        return order;
      }
      idle.tick();
    }
    return null;
  }

  /** The claim said how many messages the order got: reserve that many instead of a batch. */
  public void claimed(Order order, int count) {
    int before = order.reservation;
    order.reservation = count;
    reserved.addAndGet(count - before);
  }

  /**
   * Gives the order's slot and reservation back (once) and tells the coordinator: a full batch
   * hints at more waiting (unless a batch is one message), a failed one or a claim given back for
   * being short of its minimum leaves the decision to a count, an empty claim frees a processor.
   */
  public void done(Order order, int claimed, boolean failed) {
    if (!release(order, failed ? 0 : claimed)) {
      return;
    }
    Wakeups.Event next;
    if (failed) {
      next = Wakeups.Event.RECHECK;
    } else if (claimed == 0) {
      next = order.minimum > 1 ? Wakeups.Event.RECHECK : Wakeups.Event.SLOT_FREE;
    } else if (claimed >= batchSize && batchSize > 1) {
      next = Wakeups.Event.BATCH_FULL;
    } else {
      next = Wakeups.Event.BATCH_DONE;
    }
    wakeups.post(next);
  }

  /**
   * The order claimed nothing, but a head another worker held was released while it waited: a
   * successor is claimable now, which is as good a hint as a notification.
   */
  public void headReleased(Order order) {
    if (release(order, 0)) {
      wakeups.post(Wakeups.Event.HINT);
    }
  }

  /**
   * Gives the order's slot and reservation back (once), having said how many it claimed; false if
   * that was done already.
   */
  private boolean release(Order order, int claimed) {
    if (!order.done.compareAndSet(false, true)) {
      return false;
    }
    lastClaimed = claimed;
    reserved.addAndGet(-order.reservation);
    slots.release();
    return true;
  }

  public void stop() {
    queue.add(STOP);
  }
}
