/**
 * One batch in one transaction, on the processor thread. {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner} runs the steps: the claim (what to
 * claim is its own), {@link dev.pginbox.inbox.postgres.internal.worker.batch.HandlerTurns} (claim
 * ahead only), the {@link dev.pginbox.inbox.postgres.internal.worker.batch.HandlerCalls} ({@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.MessageCalls} or {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchHandlerCalls}: the handler part by part, a
 * savepoint each, kept by the {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch}, which is also the transaction
 * the handler gets), {@link dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder} (the
 * failed attempts), the commit; it ends in a {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchOutcome}. {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.TransactionErrors} reads an exception that ended
 * the transaction; {@link dev.pginbox.inbox.postgres.internal.worker.batch.TimeoutRecovery} ends a
 * batch the watchdog took; {@link dev.pginbox.inbox.postgres.internal.worker.batch.Suspects}
 * remembers the parts of a batch handler that timed out.
 *
 * <p>The batch reaches the database only through its storage port, {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchStore} in {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchTransactions}; {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.PostgresBatchStore} is both on PostgreSQL (on a
 * {@code BatchTransactionBoundary}), {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.ShardBatchStore} on a distributed inbox (each
 * transaction on the node of the shard visited), and the unit tests use an in-memory store. Nothing
 * here knows what woke the worker.
 */
package dev.pginbox.inbox.postgres.internal.worker.batch;
