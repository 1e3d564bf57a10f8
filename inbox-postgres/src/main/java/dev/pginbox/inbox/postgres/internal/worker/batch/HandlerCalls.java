package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxMessage;
import java.sql.SQLException;
import java.util.List;

/**
 * Hands a claimed batch to the application's handler, part by part, each part in a savepoint of the
 * batch's transaction (see {@link InFlightBatch}, which is the transaction the handler gets):
 *
 * <ul>
 *   <li>a message handler gets one message per part ({@link MessageCalls}); a failure undoes that
 *       message's writes and is charged to it alone;
 *   <li>a batch handler gets the whole batch ({@link BatchHandlerCalls}); when it throws, nobody is
 *       charged yet: the part's writes are undone and it is handed over again in halves, down to
 *       single messages, and only a message that fails alone is charged (a timed-out part is split
 *       by {@link Suspects} the same way, over the next batches).
 * </ul>
 *
 * <p>With several messages of an aggregate per batch ({@code messagesPerAggregate}), a message that
 * fails holds back its aggregate ({@link AggregateHold}): the batch's later messages of that
 * aggregate are not kept but given back to the queue uncharged ({@link Handled#heldBack}), so they
 * follow the failed one when it is retried.
 */
public interface HandlerCalls {

  /**
   * What the handler made of the batch; {@code takenAway}: it timed out or the worker stopped;
   * {@code refused}: the handler failed for an environmental reason (see {@code
   * SqlStates#isEnvironmental}), so the whole batch must roll back uncharged; {@code aborted}: the
   * handler threw HandlerAbortException (the batch rolls back, the worker stops); {@code heldBack}:
   * the ids of messages not handed over because an earlier message of their aggregate failed.
   */
  record Handled(
      boolean takenAway,
      Throwable refused,
      HandlerAbortException aborted,
      List<Failure> failures,
      List<String> heldBack,
      int processed,
      int skipped) {

    static Handled refusedBy(Throwable error) {
      return new Handled(false, error, null, List.of(), List.of(), 0, 0);
    }

    static Handled abortedBy(HandlerAbortException e) {
      return new Handled(false, null, e, List.of(), List.of(), 0, 0);
    }
  }

  /** Runs the handler over the batch, part by part in {@code batch}'s savepoints. */
  Handled handle(List<InboxMessage> messages, InFlightBatch batch) throws SQLException;
}
