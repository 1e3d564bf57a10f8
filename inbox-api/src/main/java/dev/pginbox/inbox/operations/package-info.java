/**
 * Operating an inbox rather than sending to it or handling its messages: {@link
 * dev.pginbox.inbox.operations.InboxOperations} (from {@code Inbox.operations()}) and the values it
 * and {@code Inbox}'s read methods return: health and status, dead letters and their groups, one
 * message in detail, blocked aggregates, partition lag, throughput, vacuum state, ordering gaps,
 * the workers, a retention step's result and the audit trail of operator actions.
 *
 * <p>Replay, discard and purge are here only, and each writes a row to the audit trail. This
 * package uses the core package {@code dev.pginbox.inbox} only for its exceptions.
 */
package dev.pginbox.inbox.operations;
