package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import java.util.List;

/** What one batch transaction got to, for reading an exception that ended it. */
final class Attempt {
  BatchStore store;
  InFlightBatch batch;
  HandlerTurns.Turn turn;
  List<InboxMessage> messages = List.of();

  /** The handler was done with the batch and its outcome recorded: only the commit was left. */
  boolean handled;

  int processed;
  int skipped;

  boolean takenAway() {
    return batch != null && batch.takenAway();
  }
}
