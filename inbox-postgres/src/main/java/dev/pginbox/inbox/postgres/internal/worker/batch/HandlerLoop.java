package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxMessage;
import java.sql.SQLException;
import java.util.List;

/** One way of calling the handler over a batch: {@link MessageCalls}, {@link BatchHandlerCalls}. */
interface HandlerLoop {

  /** Calls the handler over {@code messages}; false when the batch was taken away meanwhile. */
  boolean handle(List<InboxMessage> messages, InFlightBatch batch, Tally tally) throws SQLException;
}
