package dev.pginbox.inbox;

/**
 * Handles one message inside the batch's transaction. The worker wraps every call in a savepoint: a
 * thrown exception (or a {@link Outcome.Kind#RETRY}/{@link Outcome.Kind#DEAD} outcome) undoes only
 * this message's writes, records the failure, and the rest of the batch goes on.
 */
@FunctionalInterface
public interface MessageHandler {
  Outcome handle(InboxMessage message, InboxTransaction transaction) throws Exception;
}
