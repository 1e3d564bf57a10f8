package dev.pginbox.inbox.postgres.internal.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.batch.InMemoryBatchStore.State;
import dev.pginbox.inbox.postgres.internal.worker.batch.InMemoryBatchStore.Writes;
import dev.pginbox.inbox.postgres.internal.worker.events.WorkerEvents;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The batch core on an in-memory store, without a database: handler calls part by part, the state
 * of a batch in flight, the search for the message that breaks a commit, and the hand-over of a
 * timed-out batch. What PostgreSQL makes of the same steps is for the end-to-end worker tests.
 */
class BatchCoreTest {

  private static final String INBOX = "orders";
  private static final int MAX_RETRIES = 2;

  private final WorkerOptions options = WorkerOptions.builder(INBOX).batchSize(4).build();
  private final InMemoryBatchStore store = new InMemoryBatchStore(MAX_RETRIES);
  private final WorkerEvents events =
      new WorkerEvents(new SimpleMeterRegistry(), INBOX, WorkerListener.NONE);
  private final FailureLog failureLog = new FailureLog(INBOX);
  private final Suspects suspects = new Suspects();
  private final OutcomeRecorder recorder = new OutcomeRecorder(INBOX, events);
  private final ClaimScope scope = new ClaimScope(PartitionAssignment.all(), INBOX, "w1");

  private BatchRunner runner(HandlerCalls calls) {
    return new BatchRunner(
        options, store.transactions(), scope, false, calls, recorder, suspects, events, null);
  }

  private BatchRunner runner(MessageHandler handler) {
    return runner(new MessageCalls(handler, events, failureLog, false, false));
  }

  private BatchRunner runner(BatchHandler handler) {
    return runner(new BatchHandlerCalls(handler, events, failureLog, suspects, false, false));
  }

  /** A tracker that keeps the batch in flight, as the processor's watchdog would. */
  private static final class Watched implements BatchRunner.Tracker {
    InFlightBatch batch;
    int claimed;

    @Override
    public void claimed(int count) {
      claimed = count;
    }

    @Override
    public Runnable watch(InFlightBatch batch) {
      this.batch = batch;
      return () -> {};
    }
  }

  private static List<String> ids(List<InboxMessage> messages) {
    return messages.stream().map(InboxMessage::eventId).toList();
  }

  @Test
  void a_failing_message_is_charged_alone_and_only_its_writes_are_undone() throws Exception {
    store.add("a", "b", "c");
    BatchRunner runner =
        runner(
            (MessageHandler)
                (m, tx) -> {
                  tx.unwrap(Writes.class).add(m.eventId());
                  if (m.eventId().equals("b")) {
                    throw new IllegalStateException("no stock for b");
                  }
                  return null;
                });

    BatchOutcome outcome = runner.run(DispatchReason.MANUAL, 1, 4, new Watched());

    assertThat(outcome).isEqualTo(BatchOutcome.committed(3));
    assertThat(store.committedWrites()).containsExactly("a", "c");
    assertThat(store.state("a")).isEqualTo(State.PROCESSED);
    assertThat(store.state("c")).isEqualTo(State.PROCESSED);
    assertThat(store.state("b")).isEqualTo(State.PENDING);
    assertThat(store.errors("b")).singleElement().asString().contains("no stock for b");
    // The claim set the first savepoint; only the part after kept writes needed one of its own.
    assertThat(store.savepointsSet).isEqualTo(1);
    assertThat(store.rollbacksToSavepoint).isEqualTo(1);
  }

  @Test
  void a_batch_handler_that_throws_gets_its_part_again_in_halves_and_only_the_culprit_is_charged()
      throws Exception {
    store.add("a", "b", "c", "d");
    List<List<String>> parts = new ArrayList<>();
    BatchRunner runner =
        runner(
            (BatchHandler)
                (batch, tx) -> {
                  parts.add(ids(batch));
                  batch.forEach(m -> tx.unwrap(Writes.class).add(m.eventId()));
                  if (ids(batch).contains("c")) {
                    throw new IllegalStateException("c breaks the handler");
                  }
                  return BatchResult.allProcessed();
                });

    BatchOutcome outcome = runner.run(DispatchReason.MANUAL, 1, 4, new Watched());

    assertThat(outcome.kind()).isEqualTo(BatchOutcome.Kind.COMMITTED);
    assertThat(parts)
        .containsExactly(
            List.of("a", "b", "c", "d"),
            List.of("a", "b"),
            List.of("c", "d"),
            List.of("c"),
            List.of("d"));
    assertThat(store.committedWrites()).containsExactly("a", "b", "d");
    assertThat(store.errors("c")).hasSize(1);
    assertThat(List.of("a", "b", "d")).allSatisfy(id -> assertThat(store.errors(id)).isEmpty());
  }

  @Test
  void a_commit_that_one_message_breaks_is_narrowed_down_to_it_and_only_it_is_charged()
      throws Exception {
    store.add("a", "poison", "c", "d");
    store.failCommitWhen(writes -> writes.contains("poison"));
    BatchRunner runner =
        runner(
            (BatchHandler)
                (batch, tx) -> {
                  batch.forEach(m -> tx.unwrap(Writes.class).add(m.eventId()));
                  return BatchResult.allProcessed();
                });

    List<BatchOutcome> outcomes = new ArrayList<>();
    BatchOutcome outcome;
    do {
      outcome = runner.run(DispatchReason.MANUAL, 1, 4, new Watched());
      outcomes.add(outcome);
    } while (outcome.kind() != BatchOutcome.Kind.EMPTY && outcomes.size() < 20);

    assertThat(outcome.kind()).isEqualTo(BatchOutcome.Kind.EMPTY);
    assertThat(outcomes.get(0)).isEqualTo(BatchOutcome.committed(1)); // "a", the first half's half
    assertThat(outcomes)
        .extracting(BatchOutcome::kind)
        .doesNotContain(BatchOutcome.Kind.COMMIT_FAILED);
    assertThat(List.of("a", "c", "d"))
        .allSatisfy(
            id -> {
              assertThat(store.state(id)).isEqualTo(State.PROCESSED);
              assertThat(store.errors(id)).isEmpty();
            });
    assertThat(store.state("poison")).isEqualTo(State.DEAD);
    assertThat(store.errors("poison")).hasSize(MAX_RETRIES); // dead after max-retries failures
    assertThat(store.committedWrites()).containsExactlyInAnyOrder("a", "c", "d");
  }

  @Test
  void the_batch_belongs_to_whoever_takes_it_first() throws Exception {
    store.add("a", "b");
    List<String> ids = ids(store.claim(new BatchStore.Claim(2, scope.claimable(), true, false)));
    InFlightBatch batch = new InFlightBatch(ids, store, Thread.currentThread(), true, null);

    assertThat(batch.beginPart(List.of("a"), false)).isTrue();
    assertThat(batch.timeOut()).isTrue();
    assertThat(Thread.interrupted()).isTrue(); // the handler's thread is interrupted
    assertThat(store.cancelled).isTrue(); // and its statement cancelled

    assertThat(batch.finish()).isFalse();
    assertThat(batch.stop()).isFalse();
    assertThat(batch.timedOut()).isTrue();
    assertThat(batch.endPart(true, List.of(), List.of("a"))).isFalse();
    assertThat(batch.beginPart(List.of("b"), false)).isFalse();

    InFlightBatch finished = new InFlightBatch(ids, store, Thread.currentThread(), true, null);
    assertThat(finished.finish()).isTrue();
    assertThat(finished.timeOut()).isFalse();
    assertThat(finished.takenAway()).isFalse();
  }

  @Test
  void a_savepoint_is_set_only_before_a_write_that_follows_kept_writes() throws Exception {
    store.add("a", "b", "c", "d");
    List<String> ids = ids(store.claim(new BatchStore.Claim(4, scope.claimable(), true, false)));
    InFlightBatch batch = new InFlightBatch(ids, store, Thread.currentThread(), true, null);

    batch.beginPart(List.of("a"), false);
    batch.ensureSavepoint(); // set by the claim
    batch.endPart(true, List.of(), List.of("a"));
    assertThat(store.savepointsSet).isZero();

    batch.beginPart(List.of("b"), false);
    batch.ensureSavepoint(); // after kept writes: release and set
    batch.endPart(false, List.of(Failure.of("b", "failed")), List.of("b"));
    assertThat(store.savepointsSet).isEqualTo(1);
    assertThat(store.rollbacksToSavepoint).isEqualTo(1);

    batch.beginPart(List.of("c"), false);
    batch.ensureSavepoint(); // the rolled-back part's savepoint marks this part's start
    batch.endPart(true, List.of(), List.of("c"));
    batch.beginPart(List.of("d"), false); // wrote nothing: nothing to roll back
    batch.endPart(false, List.of(), List.of());
    assertThat(store.savepointsSet).isEqualTo(1);
    assertThat(store.rollbacksToSavepoint).isEqualTo(1);
    assertThat(batch.failures()).containsExactly(Failure.of("b", "failed"));
    assertThat(batch.touched()).isTrue();
  }

  @Test
  void a_timed_out_batch_is_ended_by_the_replacement_which_charges_the_running_message_only()
      throws Exception {
    store.add("a", "b", "c");
    Watched watched = new Watched();
    TimeoutRecovery recovery =
        new TimeoutRecovery(INBOX, Duration.ofSeconds(1), suspects, recorder);
    BatchRunner runner =
        runner(
            (MessageHandler)
                (m, tx) -> {
                  tx.unwrap(Writes.class).add(m.eventId());
                  if (m.eventId().equals("b")) {
                    // The watchdog takes the batch while b's handler hangs; the replacement ends
                    // it.
                    assertThat(watched.batch.timeOut()).isTrue();
                    Thread.interrupted();
                    recovery.end(watched.batch);
                  }
                  return null;
                });

    BatchOutcome outcome = runner.run(DispatchReason.MANUAL, 1, 4, watched);

    assertThat(outcome.kind()).isEqualTo(BatchOutcome.Kind.TIMED_OUT);
    assertThat(outcome.claimed()).isEqualTo(3);
    assertThat(store.state("a")).isEqualTo(State.PROCESSED); // finished before the timeout
    assertThat(store.errors("b"))
        .singleElement()
        .asString()
        .startsWith("processing timeout: the handler ran longer than PT1S");
    assertThat(store.state("c")).isEqualTo(State.PENDING); // given back uncharged
    assertThat(store.errors("c")).isEmpty();
    assertThat(store.committedWrites()).containsExactly("a"); // b's writes rolled back
    assertThat(store.aborted).isTrue(); // the stuck handler cannot write anything more
  }

  @Test
  void a_timed_out_part_of_several_messages_is_not_charged_but_handed_over_in_halves_next_time()
      throws Exception {
    store.add("a", "b", "c", "d");
    List<String> ids = ids(store.claim(new BatchStore.Claim(4, scope.claimable(), true, false)));
    InFlightBatch batch = new InFlightBatch(ids, store, Thread.currentThread(), true, null);
    assertThat(batch.beginPart(ids, false)).isTrue();
    assertThat(batch.timeOut()).isTrue();
    Thread.interrupted();

    new TimeoutRecovery(INBOX, Duration.ofSeconds(1), suspects, recorder).end(batch);

    assertThat(ids).allSatisfy(id -> assertThat(store.errors(id)).isEmpty());
    assertThat(ids).allSatisfy(id -> assertThat(store.state(id)).isEqualTo(State.PENDING));
    List<InboxMessage> next = store.claim(new BatchStore.Claim(4, scope.claimable(), false, false));
    assertThat(suspects.parts(next, false))
        .extracting(BatchCoreTest::ids)
        .containsExactly(List.of("a", "b"), List.of("c", "d"));
  }
}
