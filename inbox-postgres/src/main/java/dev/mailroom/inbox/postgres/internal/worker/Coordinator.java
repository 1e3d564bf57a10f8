package dev.mailroom.inbox.postgres.internal.worker;

import dev.mailroom.inbox.WorkerListener.DispatchReason;
import dev.mailroom.inbox.WorkerListener.WakeUpCause;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batching rule (the original mailroom collector's, made robust), on one thread with its own
 * connection for counting:
 *
 * <ul>
 *   <li>on every wake-up (notification, poll interval, batch timeout, (re)connection) count the
 *       waiting messages in the database, capped, minus those already dispatched; notifications are
 *       only a hint, so folded or lost ones lose nothing;
 *   <li>at least a batch waiting: dispatch a full batch at once, and look again right away (full
 *       batches go out back to back while processors are free);
 *   <li>fewer: dispatch once the batch timeout has passed since the first wake-up that saw them
 *       (at once with a zero timeout);
 *   <li>no notification for a poll interval: look anyway.
 * </ul>
 */
final class Coordinator implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  private final WorkerRuntime runtime;
  private final WorkerContext ctx;
  private final Wakeups wakeups;
  private final boolean primary;
  private final long batchTimeoutNanos;
  private final long pollNanos;
  private final int batchSize;

  Coordinator(WorkerRuntime runtime, WorkerContext ctx, Wakeups wakeups) {
    this.runtime = runtime;
    this.ctx = ctx;
    this.wakeups = wakeups;
    // Without LISTEN this connection is the one whose state the application hears about.
    this.primary = !ctx.options().listen();
    this.batchTimeoutNanos = ctx.options().batchTimeout().toNanos();
    this.pollNanos = ctx.options().pollInterval().toNanos();
    this.batchSize = ctx.options().batchSize();
  }

  @Override
  public void run() {
    Backoff backoff = new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
    try {
      while (!runtime.stopping()) {
        WorkerConnection wc = null;
        try {
          wc = WorkerConnection.open(ctx.jdbi(), ctx.inbox(), false, "coordinator");
          runtime.register(wc);
          backoff.reset();
          if (primary) {
            ctx.listener().connected();
          }
          loop(wc);
        } catch (SQLException e) {
          if (runtime.stopping()) {
            return;
          }
          Duration delay = backoff.next();
          ctx.metrics().reconnects.increment();
          LOG.warn("inbox {}: coordinator connection failed ({}); retrying in {} ms", ctx.inbox(), e.getMessage(),
              delay.toMillis());
          if (primary) {
            ctx.listener().connectionLost(e, delay);
          }
          runtime.sleep(delay);
        } finally {
          if (wc != null) {
            runtime.unregister(wc);
            wc.close();
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void loop(WorkerConnection wc) throws SQLException, InterruptedException {
    long firstSeen = 0;
    boolean seen = false;
    long nextPoll = System.nanoTime();
    // Whatever happened while disconnected, look at once.
    boolean look = true;
    WakeUpCause cause = WakeUpCause.CONNECTED;
    while (!runtime.stopping()) {
      if (cause != null) {
        ctx.metrics().wakeUp(cause);
        ctx.listener().wakeUp(cause);
      }
      boolean free = runtime.hasFreeSlot();
      if (look) {
        nextPoll = System.nanoTime() + pollNanos;
      }
      if (look && free) {
        int reserved = runtime.reserved();
        int available = count(wc, batchSize + reserved) - reserved;
        long now = System.nanoTime();
        if (available <= 0) {
          seen = false;
        } else {
          if (!seen) {
            seen = true;
            firstSeen = now;
          }
          if (available >= batchSize) {
            runtime.dispatch(DispatchReason.MAX_REACHED);
            wakeups.post(Wakeups.Event.RECHECK);
          } else if (now - firstSeen >= batchTimeoutNanos) {
            runtime.dispatch(DispatchReason.TIMEOUT);
            seen = false;
          }
        }
      }
      long deadline = nextPoll;
      // With every processor busy an expired timer can wait for the next BATCH_DONE.
      if (seen && free) {
        deadline = Math.min(deadline, firstSeen + batchTimeoutNanos);
      }
      Set<Wakeups.Event> events = wakeups.awaitUntil(deadline);
      long now = System.nanoTime();
      if (events.contains(Wakeups.Event.STOP)) {
        return;
      }
      if (events.contains(Wakeups.Event.SLOT_FREE) && !events.contains(Wakeups.Event.BATCH_DONE)) {
        // A processor came back empty-handed: what we counted is held by someone else (another
        // process's open batch). Wait for a real wake-up rather than dispatch again in a loop.
        seen = false;
      }
      look = true;
      if (events.contains(Wakeups.Event.CONNECTED)) {
        cause = WakeUpCause.CONNECTED;
      } else if (events.contains(Wakeups.Event.NOTIFY)) {
        cause = WakeUpCause.NOTIFY;
      } else if (events.contains(Wakeups.Event.BATCH_DONE) || events.contains(Wakeups.Event.RECHECK)) {
        cause = null; // internal: look again, full batches go out back to back
      } else if (seen && now - firstSeen >= batchTimeoutNanos) {
        cause = WakeUpCause.TIMEOUT;
      } else if (now >= nextPoll) {
        cause = WakeUpCause.POLL;
      } else {
        cause = null;
        look = false;
      }
    }
  }

  private int count(WorkerConnection wc, int cap) throws SQLException {
    PreparedStatement ps = wc.statement("count_waiting");
    ps.setString(1, ctx.inbox());
    ps.setInt(2, cap);
    int[] buckets = ctx.scope().bucketsForCount();
    if (buckets == null) {
      ps.setNull(3, Types.ARRAY);
    } else if (buckets.length == 0) {
      return 0;
    } else {
      ps.setArray(3, wc.connection().createArrayOf("int4", ClaimScope.box(buckets)));
    }
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
