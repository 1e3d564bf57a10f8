package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.batch.BatchOutcome;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner;
import dev.pginbox.inbox.postgres.internal.worker.batch.ClaimLimit;
import dev.pginbox.inbox.postgres.internal.worker.batch.HandlerTurns;
import dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.PostgresBatchStore;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.internal.worker.batch.TimeoutRecovery;
import dev.pginbox.inbox.postgres.internal.worker.batch.UnreadableMessage;
import dev.pginbox.inbox.postgres.internal.worker.connection.Backoff;
import dev.pginbox.inbox.postgres.internal.worker.connection.DedicatedConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.RunControl;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import dev.pginbox.inbox.postgres.internal.worker.connection.Standby;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.wake.ClaimQueue;
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
  private final ClaimLimit claimLimit;

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
    BatchTransactionBoundary boundary = ctx.given().boundary();
    this.ownConnection =
        boundary == null
            ? new DedicatedConnection(
                ctx.jdbi(), ctx.inbox(), ctx.options().processingTimeout(), connection)
            : null;
    PostgresBatchStore transactions =
        BatchWiring.transactions(ctx, boundary != null ? boundary : ownConnection);
    this.runner =
        BatchWiring.runner(
            ctx, transactions, shared.suspects(), shared.recorder(), true, shared.turns());
    this.unreadable =
        new UnreadableMessage(ctx.inbox(), transactions, ctx.scope(), shared.recorder());
    this.backoff =
        new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
    this.claimLimit = new ClaimLimit(ctx.options().batchSize());
  }

  @Override
  public void run() {
    try {
      if (timedOut != null) {
        shared.recovery().end(timedOut);
        shared.queue().done(timedOutOrder, timedOut.eventIds().size(), false);
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

  /** Runs one order; false when this thread must end (its batch was taken away). */
  private boolean runOrder(ClaimQueue.Order order) throws InterruptedException {
    int batchSize = claimLimit.current();
    int granted = 0;
    while (granted == 0 && !shared.run().stopping()) {
      granted = Math.min(batchSize, ctx.given().permits().acquire(batchSize, PERMIT_WAIT));
    }
    if (granted == 0) {
      shared.queue().done(order, 0, false);
      return true;
    }
    PermitGrant grant = new PermitGrant(ctx.given().permits(), granted);
    BatchOutcome outcome =
        runner.run(
            order.reason(), Math.min(order.minimum(), granted), granted, tracker(order, grant));
    grant.keep(outcome.claimed());
    return actOn(outcome, order, granted);
  }

  /** What the processor does after a batch; false when this thread must end. */
  private boolean actOn(BatchOutcome outcome, ClaimQueue.Order order, int granted)
      throws InterruptedException {
    switch (outcome.kind()) {
      case EMPTY, COMMITTED, HEAD_RELEASED -> {
        backoff.reset();
        claimLimit.afterBatch(outcome.claimed(), granted, shared.queue().claimsOnShortBatch());
        ctx.events().primaryReached();
        ctx.events().recovered("processor");
        if (outcome.kind() == BatchOutcome.Kind.HEAD_RELEASED) {
          shared.queue().headReleased(order);
        } else {
          shared.queue().done(order, outcome.claimed(), false);
        }
      }
      case OUT_OF_MEMORY -> outOfMemory(outcome, order, granted);
      case REFUSED -> {
        refused(outcome.cause());
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
      case COMMIT_FAILED -> {
        // Never leaves BatchRunner.run.
      }
    }
    return true;
  }

  private void outOfMemory(BatchOutcome outcome, ClaimQueue.Order order, int granted)
      throws InterruptedException {
    if (granted == 1 && unreadable.charge(outcome.cause())) {
      // One message too big to read, charged: it cannot block the claim forever.
      shared.queue().done(order, 0, true);
      return;
    }
    if (granted > 1) {
      int limit = claimLimit.halve();
      LOG.warn(
          "inbox {}: out of memory reading a batch of up to {} messages; claiming at most {}"
              + " for now",
          ctx.inbox(),
          granted,
          limit);
    }
    connectionLost(outcome.cause());
    shared.queue().done(order, outcome.claimed(), true);
  }

  /** The database refused the work (its set-up, or a standby): wait before the next order. */
  private void refused(Throwable cause) throws InterruptedException {
    if (SqlStates.isStandby(cause)) {
      Standby.refused(ctx.events(), ctx.inbox(), "processor", cause);
      shared.run().sleep(Standby.RETRY);
      return;
    }
    Duration delay = backoff.next();
    ctx.events().refused("processor", SqlStates.of(cause), SqlStates.describe(cause), cause, delay);
    shared.run().sleep(delay);
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

  private BatchRunner.Tracker tracker(ClaimQueue.Order order, PermitGrant grant) {
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
                  ctx.events().processingTimedOut(b.eventIds());
                  shared.startProcessor().accept(new Processor(shared, null, b, order));
                });
      }
    };
  }

  private void connectionLost(Throwable e) throws InterruptedException {
    if (SqlStates.isStandby(e)) {
      Standby.refused(ctx.events(), ctx.inbox(), "processor", e);
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
