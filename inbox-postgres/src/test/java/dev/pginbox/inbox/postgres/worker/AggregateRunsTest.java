package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * {@code WorkerOptions.messagesPerAggregate}: batches that hold several messages of an aggregate
 * must still hand each aggregate over in order, once, however its messages fail.
 */
class AggregateRunsTest extends WorkerTestSupport {

  /** Gives a worker its handler (and whatever else): its builder, the inbox, the worker's name. */
  private interface Handling {
    PostgresInboxWorker.Builder apply(
        PostgresInboxWorker.Builder builder, String inbox, String name);
  }

  /**
   * 1,000 messages over 20 aggregates (ordered by arrival, sent in several statements so an
   * aggregate's order spans transactions), drained by four workers of two processors taking runs of
   * five; returns the inbox.
   */
  private String drainedByFourWorkersTakingRuns(String prefix, Handling handling) {
    String inbox = newInbox(prefix, 1000);
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'received_at')");
    List<InboxWorker> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      PostgresInboxWorker.Builder builder =
          PostgresInboxWorker.builder(
              dataSource(),
              options(inbox, true).concurrency(2).batchSize(20).messagesPerAggregate(5).build());
      workers.add(track(handling.apply(builder, inbox, "w" + w).build()));
    }
    for (int batch = 0; batch < 10; batch++) {
      insert(inbox, "m", batch * 100, 100, 20);
    }
    workers.forEach(InboxWorker::start);
    awaitDrained(inbox, Duration.ofSeconds(90));
    return inbox;
  }

  /**
   * m-0 .. m-9 over agg-0 (the even ones) and agg-1 (the odd ones), ordered by seq, drained by one
   * worker taking runs of ten; returns the inbox.
   */
  private String drainedTenTakingRuns(String prefix, Handling handling) {
    String inbox = newInbox(prefix, 5);
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'seq')");
    PostgresInboxWorker.Builder builder =
        PostgresInboxWorker.builder(
            dataSource(), options(inbox, false).batchSize(100).messagesPerAggregate(10).build());
    InboxWorker worker = track(handling.apply(builder, inbox, "w").build());
    insert(inbox, "m", 0, 10, 2);
    worker.start();
    awaitDrained(inbox, Duration.ofSeconds(30));
    return inbox;
  }

  private static long charged(String inbox) {
    return count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0");
  }

  private static List<String> idsOf(List<InboxMessage> batch) {
    return batch.stream().map(InboxMessage::eventId).toList();
  }

  @Test
  void four_workers_taking_runs_of_five_with_random_failures_keep_exact_order() {
    List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    String inbox =
        drainedByFourWorkersTakingRuns(
            "runs",
            (builder, in, name) ->
                builder
                    .handler(recordingAndFailingOneInFive(in, name))
                    .listener(
                        new WorkerListener() {
                          @Override
                          public void onDispatch(int count, WorkerListener.DispatchReason reason) {
                            batchSizes.add(count);
                          }
                        }));

    // _handled has event_id as its primary key: 1,000 rows are 1,000 messages applied once each.
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(1000);
    assertThat(handledOutOfOrder(inbox)).isZero();
    assertThat(charged(inbox)).isPositive();
    // 20 aggregates among four workers: batches of one message per aggregate would hold at most
    // 20; runs fill them past that.
    assertThat(batchSizes).anyMatch(size -> size > 10);
  }

  @Test
  void a_failure_gives_its_aggregates_later_messages_back_uncharged_and_they_follow_its_retry() {
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    List<String> calls = new CopyOnWriteArrayList<>();
    String inbox =
        drainedTenTakingRuns(
            "held_back",
            (builder, in, name) ->
                builder.handler(
                    (m, tx) -> {
                      calls.add(m.eventId());
                      recordHandled(
                          tx.unwrap(Handle.class), in, m.eventId(), name, m.aggregateId());
                      if (m.eventId().equals("m-2") && failedOnce.add(m.eventId())) {
                        return Outcome.retryAfter(Duration.ofMillis(300), "not yet");
                      }
                      return Outcome.processed();
                    }));

    // The first batch: m-2 failed, so m-4, m-6, m-8 were not handed over; agg-1 went on.
    assertThat(calls.subList(0, 7))
        .containsExactly("m-0", "m-1", "m-2", "m-3", "m-5", "m-7", "m-9");
    assertThat(calls.subList(7, calls.size())).containsExactly("m-2", "m-4", "m-6", "m-8");
    // Only m-2 was charged.
    assertThat(charged(inbox)).isEqualTo(1);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-2'"))
        .isEqualTo(1);
    assertThat(handledOutOfOrder(inbox)).isZero();
  }

  /**
   * A batch handler with runs, failing messages at random (reported as retries, without their
   * writes) and throwing now and then after it wrote: reporting a message done behind a failure of
   * its aggregate, or throwing, must not let any message's work commit ahead of an earlier one's.
   */
  @Test
  void four_workers_with_a_batch_handler_taking_runs_and_random_failures_keep_exact_order() {
    String inbox =
        drainedByFourWorkersTakingRuns(
            "runs_batch",
            (builder, in, name) ->
                builder.batchHandler(
                    (batch, tx) -> {
                      Handle h = tx.unwrap(Handle.class);
                      ThreadLocalRandom random = ThreadLocalRandom.current();
                      BatchResult result = BatchResult.allProcessed();
                      for (InboxMessage m : batch) {
                        if (random.nextInt(8) == 0) {
                          result =
                              result.with(
                                  m.eventId(),
                                  Outcome.retryAfter(Duration.ofMillis(1), "random failure"));
                        } else {
                          recordHandled(h, in, m.eventId(), name, m.aggregateId());
                        }
                      }
                      if (random.nextInt(10) == 0) {
                        throw new IllegalStateException("random failure after writing");
                      }
                      return result;
                    }));

    // _handled has event_id as its primary key: a message applied twice fails its insert.
    assertThat(count("SELECT count(*) FROM " + inbox + "_handled")).isEqualTo(1000);
    assertThat(handledOutOfOrder(inbox)).isZero();
    assertThat(charged(inbox)).isPositive();
  }

  /**
   * The batch handler fails m-2 and reports the messages behind it in agg-0 done: their writes are
   * rolled back with the rest of the call's, m-2 is charged, m-4, m-6 and m-8 go back uncharged,
   * and the other messages are handed over again.
   */
  @Test
  void a_batch_handler_reporting_a_message_done_behind_a_failure_gets_the_rest_again() {
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    String inbox =
        drainedTenTakingRuns(
            "runs_batch_again",
            (builder, in, name) ->
                builder.batchHandler(
                    (batch, tx) -> {
                      calls.add(idsOf(batch));
                      BatchResult result = BatchResult.allProcessed();
                      for (InboxMessage m : batch) {
                        if (m.eventId().equals("m-2") && failedOnce.add(m.eventId())) {
                          result =
                              result.with(
                                  "m-2", Outcome.retryAfter(Duration.ofMillis(300), "not yet"));
                        } else {
                          recordHandled(
                              tx.unwrap(Handle.class), in, m.eventId(), name, m.aggregateId());
                        }
                      }
                      return result;
                    }));

    assertThat(calls)
        .containsExactly(
            List.of("m-0", "m-1", "m-2", "m-3", "m-4", "m-5", "m-6", "m-7", "m-8", "m-9"),
            List.of("m-0", "m-1", "m-3", "m-5", "m-7", "m-9"),
            List.of("m-2", "m-4", "m-6", "m-8"));
    assertThat(charged(inbox)).isEqualTo(1);
    assertThat(count("SELECT retry_count FROM inbox." + inbox + " WHERE event_id = 'm-2'"))
        .isEqualTo(1);
    assertThat(handledOutOfOrder(inbox)).isZero();
  }

  /**
   * The batch handler throws while m-2 is in its part: the halves narrow it down, and the parts
   * after m-2 failed alone lose agg-0's later messages (uncharged) instead of handling them first.
   */
  @Test
  void when_a_batch_handler_throws_the_parts_behind_a_failure_hold_its_aggregate_back() {
    List<List<String>> calls = new CopyOnWriteArrayList<>();
    String inbox =
        drainedTenTakingRuns(
            "runs_batch_halves",
            (builder, in, name) ->
                builder.batchHandler(
                    (batch, tx) -> {
                      calls.add(idsOf(batch));
                      for (InboxMessage m : batch) {
                        recordHandled(
                            tx.unwrap(Handle.class), in, m.eventId(), name, m.aggregateId());
                        if (m.eventId().equals("m-2") && m.retryCount() == 0) {
                          throw new IllegalStateException("m-2 fails the first time");
                        }
                      }
                      return BatchResult.allProcessed();
                    }));

    assertThat(calls)
        .containsExactly(
            List.of("m-0", "m-1", "m-2", "m-3", "m-4", "m-5", "m-6", "m-7", "m-8", "m-9"),
            List.of("m-0", "m-1", "m-2", "m-3", "m-4"),
            List.of("m-0", "m-1", "m-2"),
            List.of("m-0", "m-1"),
            List.of("m-2"),
            List.of("m-3"),
            List.of("m-5", "m-7", "m-9"),
            List.of("m-2", "m-4", "m-6", "m-8"));
    assertThat(charged(inbox)).isEqualTo(1);
    assertThat(handledOutOfOrder(inbox)).isZero();
  }
}
