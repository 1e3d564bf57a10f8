package dev.pginbox.inbox.operations;

/**
 * The result of one retention step ({@code inbox.purge_inbox}).
 *
 * @param strippedProcessed processed messages whose payload and error were removed (their event id
 *     still deduplicates until the dedup retention ends)
 * @param more true when the step used its whole batch: call again
 */
public record PurgeResult(
    long deletedProcessed, long strippedProcessed, long deletedDead, boolean more) {}
