package dev.pginbox.inbox.postgres.internal.worker.wake;

import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.connection.ReconnectLoop;
import dev.pginbox.inbox.postgres.internal.worker.connection.RunControl;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import java.sql.SQLException;
import java.util.Set;

/**
 * The batching rule (a full batch at once, a partial one after the batch timeout), on one thread
 * with its own connection for counting:
 *
 * <ul>
 *   <li>on every wake-up (notification, poll interval, batch timeout, (re)connection) count the
 *       waiting messages in the database, capped, minus those already dispatched; notifications are
 *       only a hint, so folded or lost ones lose nothing;
 *   <li>at least a batch waiting: dispatch a full batch at once, and look again right away (full
 *       batches go out back to back while processors are free);
 *   <li>fewer: dispatch once the batch timeout has passed since the first wake-up that saw them (at
 *       once with a zero timeout);
 *   <li>no notification for a poll interval: look anyway.
 * </ul>
 *
 * <p>Hints skip the count where it would only add a round trip. A batch that came back full is
 * followed by the next at once, which must be full too or is given back (then a count decides).
 * With a zero batch timeout or a batch size of one, any waiting message makes a batch to send at
 * once: a notification goes straight to a processor, handed over by the listener thread itself (see
 * {@link NotificationListener}); this thread keeps those that found every processor busy, and on an
 * ordered inbox a batch that came back short but not empty is followed by the next claim, not by a
 * count. The (re)connection and poll looks still count, at least once a poll interval while no
 * batch comes back full (on an ordered inbox: not empty), which keeps this thread's connection in
 * use; on such an ordered inbox a poll counts only for a processor without an order.
 */
public final class Coordinator implements Runnable {

  private final RunControl run;
  private final ReconnectLoop reconnect;
  private final WaitingMessages waiting;
  private final WorkerEvents workerEvents;
  private final Wakeups wakeups;
  private final ClaimQueue queue;
  private final ListenerWake listenerWake;
  private final boolean primary;
  private final long batchTimeoutNanos;
  private final long pollNanos;
  private final int batchSize;

  /** Any waiting message makes a batch: a hint is dispatched without counting. */
  private final boolean claimOnHint;

  /** A notification the listener could not hand over came since the last dispatch. */
  private boolean hinted;

  /**
   * A batch came back full (on an ordered inbox where any waiting message makes a batch: not empty)
   * since the last dispatch: more are probably waiting, and that batch was the count.
   */
  private boolean full;

  /** Messages were waiting at the last look, first seen at {@link #firstSeen} (System.nanoTime). */
  private boolean seen;

  private long firstSeen;

  public Coordinator(
      RunControl run,
      ReconnectLoop reconnect,
      WorkerOptions options,
      WaitingMessages waiting,
      WorkerEvents events,
      Wakeups wakeups,
      ClaimQueue queue,
      ListenerWake listenerWake) {
    this.run = run;
    this.reconnect = reconnect;
    this.waiting = waiting;
    this.workerEvents = events;
    this.wakeups = wakeups;
    this.queue = queue;
    this.listenerWake = listenerWake;
    // Without LISTEN this connection is the one whose state the application hears about.
    this.primary = !options.listen();
    this.batchTimeoutNanos = options.batchTimeout().toNanos();
    this.pollNanos = options.pollInterval().toNanos();
    this.batchSize = options.batchSize();
    this.claimOnHint = queue.claimsOnHint();
  }

  @Override
  public void run() {
    reconnect.run(
        run,
        "coordinator",
        primary,
        (wc, connected) -> {
          // Counts are short: one that waits longer has a half-open connection to replace.
          wc.answersWithin(WorkerConnection.SHORT_ANSWER);
          connected.run();
          // See ClaimQueue.claimsOnShortBatch for why an ordered inbox differs.
          boolean ordered = waiting.ordered(wc);
          queue.claimsOnShortBatch(claimOnHint && ordered);
          loop(wc);
          listenerWake.wake(wc);
        });
  }

  private void loop(WorkerConnection wc) throws SQLException, InterruptedException {
    seen = false;
    hinted = false;
    full = false;
    long nextPoll = System.nanoTime();
    // Whatever happened while disconnected, look at once.
    Look next = new Look(true, WakeUpCause.CONNECTED);
    long wokeAt = System.nanoTime();
    while (!run.stopping()) {
      if (next.cause() != null) {
        workerEvents.wakeUp(next.cause());
      }
      boolean free = queue.hasFreeSlot();
      if (next.look() && free && dispatchesWithoutCount(next, nextPoll)) {
        dispatchOnHint();
      } else if (next.look()) {
        nextPoll = System.nanoTime() + pollNanos;
        if (free && next.cause() != WakeUpCause.CONNECTED && draining()) {
          // The batch that ended last dispatches the next ones with its hint, without a count.
          // Its processor gives the slot back before it posts the hint: a look in between (a
          // poll, an expired batch timeout) must not count either.
          seen = false;
        } else if (free) {
          lookAndDispatch(wc, wokeAt, next.cause());
        }
      }
      long deadline = nextPoll;
      // With every processor busy an expired timer can wait for the next BATCH_DONE.
      if (seen && free) {
        deadline = Math.min(deadline, firstSeen + batchTimeoutNanos);
      }
      Set<Wakeups.Event> events = wakeups.awaitUntil(deadline);
      if (events.contains(Wakeups.Event.STOP)) {
        return;
      }
      if (events.contains(Wakeups.Event.SLOT_FREE)
          && !events.contains(Wakeups.Event.BATCH_DONE)
          && !events.contains(Wakeups.Event.BATCH_FULL)) {
        // A processor came back empty-handed: what we counted is held by someone else (another
        // process's open batch). Wait for a real wake-up rather than dispatch again in a loop.
        seen = false;
      }
      hinted |= events.contains(Wakeups.Event.NOTIFY) || events.contains(Wakeups.Event.HINT);
      full |=
          events.contains(Wakeups.Event.BATCH_FULL)
              || (queue.claimsOnShortBatch() && events.contains(Wakeups.Event.BATCH_DONE));
      wokeAt = System.nanoTime();
      next = next(events, wokeAt, nextPoll);
    }
  }

  /**
   * A hint goes straight to a processor, but at least once a poll interval the look counts:
   * counting is what notices that this thread's connection died. A full batch is the exception: it
   * is a count, taken by the claim itself, so full batches go out back to back however long the
   * drain, and this connection is next used (and a dead one replaced) when a batch comes back short
   * (empty, when any waiting message makes a batch). A count on an ordered inbox tests every
   * message of a window twice the size of a batch for an earlier one of its aggregate; it took
   * longer than the claim of 1,000 it preceded (docs/performance.md, "Ordered claim"). For the same
   * reason a batch that came back short but not empty is followed by a claim, not a count, on an
   * ordered inbox where any waiting message makes a batch ({@link ClaimQueue#claimsOnShortBatch}).
   */
  private boolean dispatchesWithoutCount(Look next, long nextPoll) {
    if (next.counts()) {
      return false;
    }
    // A hint that comes after a poll interval counts, unless the last batch was the count.
    return full || (claimOnHint && hinted && (System.nanoTime() < nextPoll || draining()));
  }

  /**
   * The batch that ended last says more are waiting, and its hint dispatches the next: it came back
   * full or, where a short batch is followed by a claim, not empty. Looks do not count meanwhile,
   * but for a (re)connection's.
   */
  private boolean draining() {
    int claimed = queue.lastClaimed();
    if (queue.claimsOnShortBatch()) {
      return claimed > 0;
    }
    // The batches whose BATCH_FULL dispatches the next (a batch of one hints nothing).
    return batchSize > 1 && claimed >= batchSize;
  }

  /**
   * After a full batch the next go out without a count (full batches back to back): every free slot
   * gets an order, the processor that is free takes one at once and the rest wait in the queue for
   * the next free processor. Under a batch timeout each must come back full too, or the processor
   * gives it back and a count decides (the timeout then applies to the rest); without one each
   * takes what it finds. Counting to fill the spare slot instead cost a count per batch, which on
   * an ordered inbox found nothing (the batch in flight holds the heads) and took longer than the
   * claim. A notification that waited for a free processor gets one order.
   */
  private void dispatchOnHint() {
    if (!full) {
      queue.offer(null, 1);
    } else if (claimOnHint) {
      while (queue.offer(null, 1)) {
        // one order per free slot
      }
    } else {
      while (queue.offer(DispatchReason.MAX_REACHED, batchSize)) {
        // one order per free slot
      }
    }
    hinted = false;
    full = false;
  }

  /**
   * Counts the waiting messages and applies the batching rule: a full batch now, fewer at the
   * timeout. Time is taken at the wake-up ({@code wokeAt}), not after the count, so the wake-up
   * cause reported for a dispatch is the one that decided it (a timeout that ran out during the
   * count is handled by the timeout wake-up that follows at once).
   */
  private void lookAndDispatch(WorkerConnection wc, long wokeAt, WakeUpCause cause)
      throws SQLException {
    hinted = false;
    full = false;
    if (queue.claimsOnShortBatch()) {
      // Ordered, and any waiting message makes a batch: a count only has to tell whether a head
      // waits beyond those the orders in flight hold, and only for a processor without an order.
      // While every processor holds one, the batch in flight ends with the hint that gives the
      // next orders (or frees its processor, and the next look counts); a count meanwhile, to
      // queue the spare order, probed a window of twice a batch for the heads that batch held
      // (docs/performance.md, "Ordered claim"). A (re)connection's look counts all the same: a
      // count that succeeds is what ends a refusal episode.
      seen = false;
      boolean idle = queue.hasIdleProcessor();
      if (idle || cause == WakeUpCause.CONNECTED) {
        int reserved = queue.reserved();
        if (waiting.count(wc, reserved + 1) > reserved && idle) {
          queue.offer(null, 1); // the claim's size names the dispatch
        }
      }
      return;
    }
    int reserved = queue.reserved();
    int available = waiting.count(wc, batchSize + reserved) - reserved;
    long now = wokeAt;
    if (available <= 0) {
      seen = false;
      return;
    }
    if (!seen) {
      seen = true;
      firstSeen = now;
    }
    if (available >= batchSize) {
      queue.offer(DispatchReason.MAX_REACHED, 1);
      wakeups.post(Wakeups.Event.RECHECK);
    } else if (now - firstSeen >= batchTimeoutNanos) {
      queue.offer(DispatchReason.TIMEOUT, 1);
      seen = false;
    }
  }

  /** Whether to look again after these events, and the wake-up cause to report (null: none). */
  private Look next(Set<Wakeups.Event> events, long now, long nextPoll) {
    if (events.contains(Wakeups.Event.CONNECTED)) {
      return new Look(true, WakeUpCause.CONNECTED);
    }
    if (events.contains(Wakeups.Event.NOTIFY)) {
      return new Look(true, WakeUpCause.NOTIFY);
    }
    if (events.contains(Wakeups.Event.BATCH_DONE)
        || events.contains(Wakeups.Event.BATCH_FULL)
        || events.contains(Wakeups.Event.RECHECK)
        || events.contains(Wakeups.Event.HINT)) {
      return new Look(true, null); // internal: look again, full batches go out back to back
    }
    if (full || (claimOnHint && hinted)) {
      return new Look(true, null); // a hint that waited for a free processor
    }
    if (seen && now - firstSeen >= batchTimeoutNanos) {
      return new Look(true, WakeUpCause.TIMEOUT);
    }
    if (now >= nextPoll) {
      return new Look(true, WakeUpCause.POLL);
    }
    return new Look(false, null);
  }
}
