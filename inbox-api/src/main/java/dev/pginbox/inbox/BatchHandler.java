package dev.pginbox.inbox;

import java.util.List;

/**
 * Handles a whole claimed batch inside its transaction and says what became of each message. A
 * thrown exception rolls the batch's transaction back and records a failed attempt for every
 * message of it; {@link HandlerAbortException} rolls back without recording anything and stops the
 * worker.
 */
@FunctionalInterface
public interface BatchHandler {
  BatchResult handle(List<InboxMessage> batch, InboxTransaction transaction) throws Exception;
}
