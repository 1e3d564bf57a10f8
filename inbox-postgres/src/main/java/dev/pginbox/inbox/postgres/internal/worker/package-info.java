/**
 * The worker runtime behind {@code PostgresInboxWorker}: its lifecycle here, its roles in the
 * subpackages.
 *
 * <ul>
 *   <li>Here: {@link dev.pginbox.inbox.postgres.internal.worker.PostgresWorker} (the {@code
 *       InboxWorker}: start, stop, {@code runOnce()}), built from a {@link
 *       dev.pginbox.inbox.postgres.internal.worker.WorkerConfig} (what it is configured with) and
 *       {@link dev.pginbox.inbox.postgres.internal.worker.WorkerDependencies} (what it is given);
 *       {@link dev.pginbox.inbox.postgres.internal.worker.RunningWorker} (the threads of one
 *       start..stop), {@link dev.pginbox.inbox.postgres.internal.worker.PendingRun} (a start the
 *       database did not answer: it chooses the run once it does), {@link
 *       dev.pginbox.inbox.postgres.internal.worker.Processor} (a processing thread), {@link
 *       dev.pginbox.inbox.postgres.internal.worker.Watchdog} (the processing timeout), {@link
 *       dev.pginbox.inbox.postgres.internal.worker.PeriodicTasks} (gauges, peers, retention,
 *       leases).
 *   <li>{@code .wake}: from a notification to an order to claim (listener, coordinator, claim
 *       queue).
 *   <li>{@code .batch}: one batch in one transaction, ending in a {@code BatchOutcome}; it reaches
 *       the database only through its storage port, {@code BatchStore}.
 *   <li>{@code .membership}: the buckets this worker may claim from (partitions, leases, peers).
 *   <li>{@code .connection}: the worker's connections, reconnecting, reading SQL states.
 *   <li>{@code .events}: what the worker reports (meters, the application's listener).
 * </ul>
 *
 * <p>The path of a message, with the thread of each step:
 *
 * <pre>
 *  INSERT ... commit ─▶ NOTIFY
 *  listener thread     NotificationListener ── any message makes a batch? ── yes ──┐
 *                        │ no: Wakeups.post(NOTIFY)                                │
 *  coordinator thread  Coordinator: WaitingMessages.count, batching rule ─────────┤
 *                                                              ClaimQueue.offer(order)
 *  processor thread    Processor: ClaimQueue.next ─▶ ClaimPermits.acquire
 *                        BatchRunner.run, in PostgresBatchStore.inTransaction
 *                        (DedicatedConnection unless the application set a boundary):
 *                          BatchRunner.claim ─▶ PostgresBatchStore.claim (lock + mark processed)
 *                          claim ahead: HandlerTurns.await
 *                          MessageCalls | BatchHandlerCalls: handler per part,
 *                            InFlightBatch: savepoints, the handler's transaction ◀── Watchdog
 *                          OutcomeRecorder: record_failures (one statement)    (timer thread)
 *                        commit ─▶ BatchOutcome ─▶ ClaimQueue.done ─▶ Wakeups
 *  timer thread        Watchdog: part past the processing timeout ─▶ InFlightBatch.timeOut
 *  replacement         TimeoutRecovery: on the batch's connection, rollback to the
 *  processor thread    savepoint, record, release the rest, commit; then it carries on
 * </pre>
 *
 * <p>On a distributed (Citus) inbox, {@link dev.pginbox.inbox.postgres.internal.worker.ShardRun}
 * replaces {@code RunningWorker} (the start check finds the inbox distributed): no listener, no
 * coordinator; the shards thread heartbeats and reads where the shards are ({@code ShardMap}), and
 * each {@link dev.pginbox.inbox.postgres.internal.worker.ShardProcessor} visits the shards held,
 * one {@code BatchRunner.run} per visit on a {@code ShardBatchStore} (claim, handler, failures and
 * commit on the shard's node), under the same {@code Watchdog}: a replacement {@code
 * ShardProcessor} ends a timed-out batch with {@code TimeoutRecovery} on the batch's node
 * connection and carries on. {@link dev.pginbox.inbox.postgres.internal.worker.RunOnce} is {@code
 * runOnce()}: one batch on a single server, one from each shard on a distributed inbox.
 *
 * <p>Ten classes on that path when any waiting message makes a batch: NotificationListener,
 * ClaimQueue, Processor, BatchRunner, DedicatedConnection, PostgresBatchStore, WorkerConnection,
 * MessageCalls or BatchHandlerCalls, InFlightBatch, OutcomeRecorder.
 *
 * <p>Dependencies point down: this package wires the roles; {@code wake} and {@code batch} never
 * use each other; {@code membership} uses {@code connection}; {@code connection} uses only {@code
 * events}. {@code LibraryArchitectureTest} keeps it so, and keeps the packages and their classes
 * free of cycles.
 */
package dev.pginbox.inbox.postgres.internal.worker;
