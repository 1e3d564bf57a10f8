package dev.pginbox.inbox.testing;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.batch.InMemoryBatches;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Runs a handler over messages without a database, through the worker's own batch logic (one part
 * per message, or a batch handler's batch halved around a failure, failures recorded, a message
 * dead after {@code maxRetries} failed attempts), until every message is processed or dead:
 *
 * <pre>{@code
 * Map<String, MessageState> states =
 *     HandlerTrial.of(handler).maxRetries(2).deliver(NewMessage.of("e1", "order.placed", "o-1", "{}"));
 * states.get("e1").assertDeadLetter("out of stock");
 * }</pre>
 *
 * <p>For a handler's decisions (which messages it takes, retries or gives up on) in milliseconds. A
 * handler that writes through its transaction ({@code unwrap}) needs the database: test it with
 * {@link InboxProbe} on a real PostgreSQL. Backoff delays are not waited out (a failed message goes
 * behind the others) and there is no processing timeout.
 */
public final class HandlerTrial {

  private static final String INBOX = "trial";

  private final MessageHandler handler;
  private final BatchHandler batchHandler;
  private int maxRetries = InboxOptions.DEFAULT_MAX_RETRIES;
  private int batchSize = WorkerOptions.DEFAULT_BATCH_SIZE;

  private HandlerTrial(MessageHandler handler, BatchHandler batchHandler) {
    this.handler = handler;
    this.batchHandler = batchHandler;
  }

  /** A trial of a handler of one message at a time. */
  public static HandlerTrial of(MessageHandler handler) {
    return new HandlerTrial(Objects.requireNonNull(handler, "handler"), null);
  }

  /** A trial of a handler of whole batches. */
  public static HandlerTrial ofBatches(BatchHandler handler) {
    return new HandlerTrial(null, Objects.requireNonNull(handler, "handler"));
  }

  /** Failed attempts after which a message is dead, as the inbox's {@code max_retries}. */
  public HandlerTrial maxRetries(int maxRetries) {
    if (maxRetries < 1) {
      throw new IllegalArgumentException("maxRetries must be at least 1, got " + maxRetries);
    }
    this.maxRetries = maxRetries;
    return this;
  }

  /** Messages claimed per batch, as the worker's {@code batchSize}. */
  public HandlerTrial batchSize(int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
    }
    this.batchSize = batchSize;
    return this;
  }

  /**
   * Delivers {@code messages} in this order until each is processed or dead; returns what became of
   * each, by event id, in that order. A repeated event id is ignored, as the inbox ignores it.
   */
  public Map<String, MessageState> deliver(List<NewMessage> messages) {
    List<InboxMessage> claimable = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    Instant now = Instant.now();
    for (NewMessage m : messages) {
      if (ids.add(m.eventId())) {
        claimable.add(
            new InboxMessage(
                m.eventId(),
                m.eventType(),
                m.source(),
                m.aggregateId(),
                m.payload(),
                now,
                null,
                null,
                0,
                m.traceId(),
                claimable.size() + 1,
                0,
                0));
      }
    }
    List<InMemoryBatches.Result> results =
        handler != null
            ? InMemoryBatches.run(handler, claimable, batchSize, maxRetries)
            : InMemoryBatches.runBatches(batchHandler, claimable, batchSize, maxRetries);
    Map<String, MessageState> states = new LinkedHashMap<>();
    for (InMemoryBatches.Result r : results) {
      states.put(
          r.eventId(),
          new MessageState(
              INBOX, r.eventId(), r.processed(), r.retryCount(), r.lastError(), maxRetries));
    }
    return states;
  }

  /** As {@link #deliver(List)}. */
  public Map<String, MessageState> deliver(NewMessage... messages) {
    return deliver(List.of(messages));
  }
}
