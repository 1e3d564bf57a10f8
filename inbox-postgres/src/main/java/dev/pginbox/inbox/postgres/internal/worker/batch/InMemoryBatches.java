package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;

/**
 * The worker's batch core over messages in memory, until each is processed or dead: the same
 * handler calls, savepoints, halving of a failing batch and failure records as the worker, on
 * {@link InMemoryBatchStore} instead of PostgreSQL. What the test kit's {@code HandlerTrial} runs.
 * No processing timeout (nothing watches the batch) and no backoff delays (a failed message goes
 * behind the others).
 */
public final class InMemoryBatches {

  private static final String INBOX = "in_memory";

  /**
   * What became of one message. {@code retryCount} as the inbox's column: the failed attempts, and
   * max retries for a message the handler declared dead.
   */
  public record Result(
      String eventId, boolean processed, boolean dead, int retryCount, String lastError) {}

  private InMemoryBatches() {}

  /** Runs {@code handler} over {@code messages}, claimed {@code batchSize} at a time. */
  public static List<Result> run(
      MessageHandler handler, List<InboxMessage> messages, int batchSize, int maxRetries) {
    return settle(
        new MessageCalls(handler, events(), new FailureLog(INBOX), false, false),
        messages,
        batchSize,
        maxRetries);
  }

  /** As {@link #run(MessageHandler, List, int, int)}, for a batch handler. */
  public static List<Result> runBatches(
      BatchHandler handler, List<InboxMessage> messages, int batchSize, int maxRetries) {
    return settle(
        new BatchHandlerCalls(
            handler, events(), new FailureLog(INBOX), new Suspects(), false, false),
        messages,
        batchSize,
        maxRetries);
  }

  private static WorkerEvents events() {
    return new WorkerEvents(new SimpleMeterRegistry(), INBOX, WorkerListener.NONE);
  }

  private static List<Result> settle(
      HandlerCalls calls, List<InboxMessage> messages, int batchSize, int maxRetries) {
    InMemoryBatchStore store = new InMemoryBatchStore(maxRetries);
    messages.forEach(store::add);
    WorkerEvents events = events();
    BatchRunner runner =
        new BatchRunner(
            WorkerOptions.builder(INBOX).batchSize(batchSize).build(),
            store.transactions(),
            new ClaimScope(PartitionAssignment.all(), INBOX, INBOX),
            false,
            calls,
            new OutcomeRecorder(INBOX, events),
            new Suspects(),
            events,
            null);
    BatchRunner.Tracker unwatched =
        new BatchRunner.Tracker() {
          @Override
          public void claimed(int count) {}

          @Override
          public Runnable watch(InFlightBatch batch) {
            return () -> {};
          }
        };
    // Every batch but the last attempts at least one message, and narrowing a commit failure down
    // halves a batch at most log2(batchSize) times: a bound that only a defect can reach.
    long bound = (long) (messages.size() + 1) * (maxRetries + 1) * (2 + Long.SIZE);
    for (long i = 0; i < bound; i++) {
      BatchOutcome outcome = runner.run(DispatchReason.MANUAL, 1, batchSize, unwatched);
      switch (outcome.kind()) {
        case EMPTY -> {
          return results(store, messages, maxRetries);
        }
        case HANDLER_ABORTED ->
            throw new IllegalStateException("the handler aborted the worker", outcome.cause());
        default -> {
          // the next batch
        }
      }
    }
    throw new IllegalStateException("the messages were not all processed or dead after " + bound);
  }

  private static List<Result> results(
      InMemoryBatchStore store, List<InboxMessage> messages, int maxRetries) {
    return messages.stream()
        .map(
            m -> {
              List<String> errors = store.errors(m.eventId());
              InMemoryBatchStore.State state = store.state(m.eventId());
              boolean dead = state == InMemoryBatchStore.State.DEAD;
              return new Result(
                  m.eventId(),
                  state == InMemoryBatchStore.State.PROCESSED,
                  dead,
                  dead ? Math.max(errors.size(), maxRetries) : errors.size(),
                  errors.isEmpty() ? null : errors.get(errors.size() - 1));
            })
        .toList();
  }
}
