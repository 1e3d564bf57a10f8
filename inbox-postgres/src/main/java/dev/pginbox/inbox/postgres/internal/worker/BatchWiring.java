package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.batch.BatchHandlerCalls;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchTransactions;
import dev.pginbox.inbox.postgres.internal.worker.batch.HandlerCalls;
import dev.pginbox.inbox.postgres.internal.worker.batch.HandlerTurns;
import dev.pginbox.inbox.postgres.internal.worker.batch.MessageCalls;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.PostgresBatchStore;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;

/** Builds a batch core from the worker's context, each part with only what it uses. */
final class BatchWiring {

  private BatchWiring() {}

  /** The batch's transactions on {@code boundary}: one per processor thread. */
  static PostgresBatchStore transactions(WorkerContext ctx, BatchTransactionBoundary boundary) {
    return new PostgresBatchStore(boundary, ctx.scope(), ctx.options());
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
        ctx.scope(),
        waitsForHeldHeads,
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
    boolean aggregateRuns = ctx.options().messagesPerAggregate() > 1;
    return ctx.given().messageHandler() != null
        ? new MessageCalls(
            ctx.given().messageHandler(),
            ctx.events(),
            ctx.failures(),
            eagerSavepoints,
            aggregateRuns)
        : new BatchHandlerCalls(
            ctx.given().batchHandler(),
            ctx.events(),
            ctx.failures(),
            suspects,
            eagerSavepoints,
            aggregateRuns);
  }
}
