package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One processing thread: takes orders from the claim queue, takes claim permits, has the batch run
 * in a transaction of the boundary (its own connection by default) and acts on the {@link
 * BatchOutcome}. When its batch passes the processing timeout, this thread is written off (its
 * handler may never come back): a replacement ends the batch on the batch's connection, completes
 * the order and takes its place.
 */
final class Processor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Processor.class);

  /** The longest a processor waits for claim permits before it checks for stop again. */
  private static final Duration PERMIT_WAIT = Duration.ofMillis(500);

  /** What every processor of a run shares. */
  record Shared(
      RunControl run,
      WorkerContext ctx,
      ClaimQueue queue,
      Watchdog watchdog,
      Suspects suspects,
      OutcomeRecorder recorder,
      TimeoutRecovery recovery,
      HandlerTurns turns,
      Consumer<Runnable> startProcessor) {}

  private final Shared shared;
  private final WorkerContext ctx;
  private final InFlightBatch timedOut;
  private final ClaimQueue.Order timedOutOrder;
  private final DedicatedConnection ownConnection;
  private final BatchRunner runner;
  private final UnreadableMessage unreadable;
  private final Backoff backoff;

  /**
   * At most the batch size; halved after a batch too big to read in memory, near the last batch's
   * size after a short one (see {@link #nextLimit}).
   */
  private int claimLimit;

  /** System.nanoTime() when this processor's connection was last used (batch or check). */
  private long lastUsed = System.nanoTime();

  /** {@code connection}: an open one to start with (null: opened when first needed). */
  Processor(Shared shared, WorkerConnection connection) {
    this(shared, connection, null, null);
  }

  private Processor(
      Shared shared,
      WorkerConnection connection,
      InFlightBatch timedOut,
      ClaimQueue.Order timedOutOrder) {
    this.shared = shared;
    this.ctx = shared.ctx();
    this.timedOut = timedOut;
    this.timedOutOrder = timedOutOrder;
    BatchTransactionBoundary boundary = ctx.boundary();
    this.ownConnection =
        boundary == null
            ? new DedicatedConnection(
                ctx.jdbi(), ctx.inbox(), ctx.options().processingTimeout(), connection)
            : null;
    this.runner =
        new BatchRunner(
            ctx,
            boundary != null ? boundary : ownConnection,
            shared.suspects(),
            shared.recorder(),
            true,
            shared.turns());
    this.unreadable =
        new UnreadableMessage(ctx, boundary != null ? boundary : ownConnection, shared.recorder());
    this.backoff =
        new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
    this.claimLimit = ctx.options().batchSize();
  }

  @Override
  public void run() {
    try {
      if (timedOut != null) {
        shared.recovery().end(timedOut);
        shared.queue().done(timedOutOrder, timedOut.eventIds.size(), false);
      }
      ClaimQueue.Order order;
      while ((order = shared.queue().next(shared.run()::stopping, this::whileIdle)) != null) {
        boolean carryOn = runOrder(order);
        lastUsed = System.nanoTime();
        if (!carryOn) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (ownConnection != null) {
        ownConnection.close();
      }
    }
  }

  /**
   * The limit of the next claim after a batch that went well. On an ordered inbox where any waiting
   * message makes a batch, a batch that got at most half its limit sets the next limit to a quarter
   * more than it got, and one that got more keeps the limit, so that workers sharing the heads each
   * claim about their share: a claim of the whole batch walks past the heads the other workers
   * hold, and the followers behind those, to the end of its window, several head tests for every
   * message it gets (docs/performance.md, "Ordered claim"). Claims that fill more than half their
   * limit keep it, as a smaller claim costs a commit more per batch. Otherwise (a full batch, or a
   * short one on a plain inbox or under a batch timeout) the limit doubles, back to the batch size;
   * an empty batch says nothing.
   */
  private int nextLimit(BatchOutcome outcome, int granted) {
    int claimed = outcome.claimed();
    if (claimed == 0) {
      return claimLimit;
    }
    int batchSize = ctx.options().batchSize();
    if (claimed < granted && shared.queue().claimsOnShortBatch()) {
      return claimed * 2 <= granted ? Math.min(batchSize, claimed + claimed / 4 + 1) : claimLimit;
    }
    return Math.min(batchSize, claimLimit * 2);
  }

  /** Runs one order; false when this thread must end (its batch was taken away). */
  private boolean runOrder(ClaimQueue.Order order) throws InterruptedException {
    int batchSize = claimLimit;
    int granted = 0;
    while (granted == 0 && !shared.run().stopping()) {
      granted = Math.min(batchSize, ctx.permits().acquire(batchSize, PERMIT_WAIT));
    }
    if (granted == 0) {
      shared.queue().done(order, 0, false);
      return true;
    }
    Grant grant = new Grant(granted);
    BatchOutcome outcome =
        runner.run(order.reason, Math.min(order.minimum, granted), granted, tracker(order, grant));
    grant.keep(outcome.claimed());
    switch (outcome.kind()) {
      case EMPTY, COMMITTED, HEAD_RELEASED -> {
        backoff.reset();
        claimLimit = nextLimit(outcome, granted);
        ctx.events().primaryReached();
        ctx.events().recovered("processor");
        if (outcome.kind() == BatchOutcome.Kind.HEAD_RELEASED) {
          shared.queue().headReleased(order);
        } else {
          shared.queue().done(order, outcome.claimed(), false);
        }
      }
      case OUT_OF_MEMORY -> {
        if (granted == 1 && unreadable.charge(outcome.cause())) {
          // One message too big to read, charged: it cannot block the claim forever.
          shared.queue().done(order, 0, true);
          return true;
        }
        if (granted > 1) {
          // A batch too big to read: smaller claims until one fits (down to one message); after
          // successful claims the limit grows back to the batch size.
          claimLimit = Math.max(1, claimLimit / 2);
          LOG.warn(
              "inbox {}: out of memory reading a batch of up to {} messages; claiming at most {}"
                  + " for now",
              ctx.inbox(),
              granted,
              claimLimit);
        }
        connectionLost(outcome.cause());
        shared.queue().done(order, outcome.claimed(), true);
      }
      case REFUSED -> {
        if (SqlStates.isStandby(outcome.cause())) {
          Standby.refused(ctx, "processor", outcome.cause());
          shared.run().sleep(Standby.RETRY);
          shared.queue().done(order, outcome.claimed(), true);
          return true;
        }
        Duration delay = backoff.next();
        ctx.events().refused("processor", SqlStates.of(outcome.cause()), outcome.cause(), delay);
        shared.run().sleep(delay);
        shared.queue().done(order, outcome.claimed(), true);
      }
      case ROLLED_BACK -> shared.queue().done(order, outcome.claimed(), true);
      case CONNECTION_LOST -> {
        // After the backoff the messages may be waiting again: the coordinator looks again.
        connectionLost(outcome.cause());
        shared.queue().done(order, outcome.claimed(), true);
      }
      case HANDLER_ABORTED -> {
        shared.run().fail(outcome.cause());
        shared.queue().done(order, outcome.claimed(), true);
      }
      case TIMED_OUT -> {
        return false; // the replacement completes the order
      }
      case STOPPED -> {
        shared.queue().done(order, outcome.claimed(), true);
        return false;
      }
    }
    return true;
  }

  /**
   * With an idle connection check: a connection unused for that long is checked, and a dead one
   * reported and replaced now, so the next message does not find it dead (and wait out a backoff).
   * A boundary's connections are the application's to keep alive.
   */
  private void whileIdle() throws InterruptedException {
    Duration interval = ctx.options().idleConnectionCheck();
    if (interval == null
        || ownConnection == null
        || System.nanoTime() - lastUsed < interval.toNanos()) {
      return;
    }
    try {
      ownConnection.check();
    } catch (SQLException | RuntimeException e) {
      connectionLost(e);
      try {
        ownConnection.reopen();
        backoff.reset();
      } catch (SQLException | RuntimeException again) {
        // The next batch opens it, with the backoff of a batch.
        connectionLost(again);
      }
    }
    lastUsed = System.nanoTime();
  }

  /**
   * The claim permits an order holds. What the claim did not use goes back right after the claim,
   * not after the batch: an empty claim may wait for a held head before its transaction ends.
   */
  private final class Grant {
    private int held;

    Grant(int held) {
      this.held = held;
    }

    /** Gives back all but {@code used} of the permits held (nothing if no more are held). */
    void keep(int used) {
      if (held > used) {
        ctx.permits().release(held - used);
        held = used;
      }
    }
  }

  private BatchRunner.Tracker tracker(ClaimQueue.Order order, Grant grant) {
    return new BatchRunner.Tracker() {
      @Override
      public void claimed(int count) {
        grant.keep(count);
        shared.queue().claimed(order, count);
      }

      @Override
      public Runnable watch(InFlightBatch batch) {
        return shared
            .watchdog()
            .watch(
                batch,
                b -> {
                  ctx.events().processingTimedOut(b.eventIds);
                  shared.startProcessor().accept(new Processor(shared, null, b, order));
                });
      }
    };
  }

  private void connectionLost(Throwable e) throws InterruptedException {
    if (SqlStates.isStandby(e)) {
      Standby.refused(ctx, "processor", e);
      shared.run().sleep(Standby.RETRY);
      return;
    }
    Duration delay = backoff.next();
    ctx.events().connectionLost(e, delay, false);
    ctx.events().processorConnectionLost(e, delay);
    LOG.warn(
        "inbox {}: processor connection failed ({}); retrying in {} ms",
        ctx.inbox(),
        SqlStates.describe(e),
        delay.toMillis());
    shared.run().sleep(delay);
  }
}
