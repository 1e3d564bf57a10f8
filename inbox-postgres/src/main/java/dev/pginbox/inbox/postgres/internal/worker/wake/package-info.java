/**
 * From a notification to an order to claim. {@link
 * dev.pginbox.inbox.postgres.internal.worker.wake.NotificationListener} (listener thread) holds the
 * LISTEN connection; when any waiting message makes a batch it offers an order itself, otherwise it
 * posts to {@link dev.pginbox.inbox.postgres.internal.worker.wake.Wakeups}, the mailbox of the
 * {@link dev.pginbox.inbox.postgres.internal.worker.wake.Coordinator} (coordinator thread), which
 * applies the batching rule to a count ({@link
 * dev.pginbox.inbox.postgres.internal.worker.wake.WaitingMessages}). Orders go to the processors
 * through the {@link dev.pginbox.inbox.postgres.internal.worker.wake.ClaimQueue}, which also tells
 * the coordinator when an order is done.
 */
package dev.pginbox.inbox.postgres.internal.worker.wake;
