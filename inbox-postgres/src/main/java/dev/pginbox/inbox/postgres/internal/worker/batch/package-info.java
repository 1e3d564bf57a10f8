/**
 * One batch in one transaction, on the processor thread. {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner} runs the steps: {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchClaim} (what to claim), {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.HandlerTurns} (claim ahead only), {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.HandlerCalls} (the handler part by part, a
 * savepoint each, kept by the {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch}), {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder} (the failed attempts), the
 * commit; it ends in a {@link dev.pginbox.inbox.postgres.internal.worker.batch.BatchOutcome}.
 * {@link dev.pginbox.inbox.postgres.internal.worker.batch.TransactionErrors} reads an exception
 * that ended the transaction; {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.TimeoutRecovery} ends a batch the watchdog took;
 * {@link dev.pginbox.inbox.postgres.internal.worker.batch.Suspects} remembers the parts of a batch
 * handler that timed out.
 *
 * <p>The batch reaches the database only through its storage port, {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchStore} in {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BatchTransactions}; {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.PostgresBatchStore} and {@link
 * dev.pginbox.inbox.postgres.internal.worker.batch.BoundaryTransactions} are the PostgreSQL ones,
 * and the unit tests use an in-memory store. Nothing here knows what woke the worker.
 */
package dev.pginbox.inbox.postgres.internal.worker.batch;
