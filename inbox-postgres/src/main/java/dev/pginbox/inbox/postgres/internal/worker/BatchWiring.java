package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.batch.BatchClaim;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchTransactions;
import dev.pginbox.inbox.postgres.internal.worker.batch.BoundaryTransactions;
import dev.pginbox.inbox.postgres.internal.worker.batch.HandlerCalls;
import dev.pginbox.inbox.postgres.internal.worker.batch.HandlerTurns;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;

/** Builds a batch core from the worker's context, each part with only what it uses. */
final class BatchWiring {

  private BatchWiring() {}

  /** The batch's transactions on {@code boundary}: one per processor thread. */
  static BoundaryTransactions transactions(WorkerContext ctx, BatchTransactionBoundary boundary) {
    return new BoundaryTransactions(boundary, ctx.scope(), ctx.options());
  }

  /**
   * A runner of batches in {@code transactions}; {@code waitsForHeldHeads}: an empty claim may wait
   * for a held head (not for runOnce); {@code turns}: the run's handler turns (null: none).
   */
  static BatchRunner runner(
      WorkerContext ctx,
      BatchTransactions transactions,
      Suspects suspects,
      OutcomeRecorder recorder,
      boolean waitsForHeldHeads,
      HandlerTurns turns) {
    return new BatchRunner(
        ctx.options(),
        transactions,
        new BatchClaim(ctx.scope(), ctx.options(), waitsForHeldHeads),
        handlerCalls(ctx, suspects),
        recorder,
        suspects,
        ctx.events(),
        turns);
  }

  private static HandlerCalls handlerCalls(WorkerContext ctx, Suspects suspects) {
    // With a boundary the handler may write through its framework, around unwrap: every part's
    // savepoint is set before the handler runs.
    boolean eagerSavepoints = ctx.given().boundary() != null;
    int perAggregate = ctx.options().messagesPerAggregate();
    return ctx.given().messageHandler() != null
        ? HandlerCalls.of(
            ctx.given().messageHandler(),
            ctx.events(),
            ctx.failures(),
            eagerSavepoints,
            perAggregate)
        : HandlerCalls.of(
            ctx.given().batchHandler(),
            ctx.events(),
            ctx.failures(),
            suspects,
            eagerSavepoints,
            perAggregate);
  }
}
