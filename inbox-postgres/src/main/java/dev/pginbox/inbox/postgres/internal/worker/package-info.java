/**
 * The worker runtime behind {@code PostgresInboxWorker}.
 *
 * <p>Roles:
 *
 * <ul>
 *   <li>{@link dev.pginbox.inbox.postgres.internal.worker.PostgresWorker} – the {@code
 *       InboxWorker}: start, stop, {@code runOnce()}; {@link
 *       dev.pginbox.inbox.postgres.internal.worker.RunningWorker} – the threads of one start..stop.
 *   <li>Wake-up: {@link dev.pginbox.inbox.postgres.internal.worker.NotificationListener} (LISTEN),
 *       {@link dev.pginbox.inbox.postgres.internal.worker.Coordinator} (the batching rule, counting
 *       waiting messages), {@link dev.pginbox.inbox.postgres.internal.worker.ClaimQueue} (orders to
 *       claim, handed to processors).
 *   <li>A batch: {@link dev.pginbox.inbox.postgres.internal.worker.Processor} (a processing
 *       thread), {@link dev.pginbox.inbox.postgres.internal.worker.BatchRunner} (claim, handler,
 *       commit in one transaction, ending in a {@link
 *       dev.pginbox.inbox.postgres.internal.worker.BatchOutcome}), {@link
 *       dev.pginbox.inbox.postgres.internal.worker.HandlerCalls} (the handler, part by part, each
 *       in a savepoint; {@link dev.pginbox.inbox.postgres.internal.worker.FailureLog} logs each
 *       failed attempt, {@link dev.pginbox.inbox.postgres.internal.worker.ErrorText} makes its
 *       error text), {@link dev.pginbox.inbox.postgres.internal.worker.OutcomeRecorder}, {@link
 *       dev.pginbox.inbox.postgres.internal.worker.UnreadableMessage} (charges a message too big to
 *       read into memory), {@link dev.pginbox.inbox.postgres.internal.worker.HandlerTurns} (claim
 *       ahead: one processor more than the concurrency, and a claimed batch waits for a turn before
 *       its handler).
 *   <li>Timeouts: {@link dev.pginbox.inbox.postgres.internal.worker.Watchdog}, {@link
 *       dev.pginbox.inbox.postgres.internal.worker.InFlightBatch}, {@link
 *       dev.pginbox.inbox.postgres.internal.worker.TimeoutRecovery}.
 *   <li>Around them: {@link dev.pginbox.inbox.postgres.internal.worker.PeriodicTasks} (gauges,
 *       retention, partition leases), {@link
 *       dev.pginbox.inbox.postgres.internal.worker.WorkerEvents} (meters and the application's
 *       listener), {@link dev.pginbox.inbox.postgres.internal.worker.WorkerConnection}.
 * </ul>
 *
 * <p>The path of a message, with the thread of each step:
 *
 * <pre>
 *  INSERT ... commit ─▶ NOTIFY
 *        listener thread      NotificationListener ── any message makes a batch? ─────┐
 *                                  │ no: Wakeups.post(NOTIFY)                         │
 *        coordinator thread   Coordinator: count waiting, batching rule ──────────────┤
 *                                                                   ClaimQueue.offer(order)
 *        processor thread     Processor: ClaimQueue.next ─▶ ClaimPermits.acquire
 *                               BatchRunner.run, in BatchTransactionBoundary.inTransaction
 *                               (DedicatedConnection unless the application set a boundary):
 *                                 claim_&lt;name&gt; (one statement: lock + mark processed);
 *                                 empty: await_held_head (ordered: wait for a held head's commit)
 *                                 claim ahead: HandlerTurns.await (the batch before has ended;
 *                                   blocks_others: a session waits for this batch? give it back)
 *                                 HandlerCalls: handler per part, in a savepoint ◀── Watchdog
 *                                 OutcomeRecorder: record_failures (one statement)    (timer thread)
 *                               commit ─▶ BatchOutcome ─▶ ClaimQueue.done ─▶ Wakeups
 *        timer thread         Watchdog: part past the processing timeout ─▶ InFlightBatch.timeOut
 *        replacement          TimeoutRecovery: on the batch's connection, rollback to the
 *        processor thread     savepoint, record, release the rest, commit; then it carries on
 * </pre>
 *
 * <p>Dependencies point one way: a thread gets narrow collaborators ({@link
 * dev.pginbox.inbox.postgres.internal.worker.RunControl}, the claim queue), never the run object;
 * {@code LibraryArchitectureTest} keeps the package free of cycles.
 */
package dev.pginbox.inbox.postgres.internal.worker;
