package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The original collector's batching rule, driven by counts: a full batch at once, fewer after the
 * batch timeout, even when PostgreSQL folds the notifications of one transaction into one.
 */
class BatchingRuleTest extends WorkerTestSupport {

  private InboxWorker start(
      String inbox, boolean listen, RecordingListener events, int batchSize, Duration timeout) {
    // Listening: polls are far apart, so the notification must do the work.
    return start(
        inbox, listen, events, batchSize, timeout, Duration.ofMillis(listen ? 10_000 : 100));
  }

  private InboxWorker start(
      String inbox,
      boolean listen,
      RecordingListener events,
      int batchSize,
      Duration timeout,
      Duration poll) {
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, listen)
                        .batchSize(batchSize)
                        .batchTimeout(timeout)
                        .pollInterval(poll)
                        .build())
                .listener(events)
                .handler((m, tx) -> Outcome.processed())
                .build());
    worker.start();
    // Ready: in LISTEN mode the listener has connected and the coordinator has looked once since.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> events.wakeUps(WakeUpCause.CONNECTED) >= (listen ? 2 : 1));
    // Past the connection wake-ups: from here on every wake-up is a notification (or a poll), so
    // the
    // cause the first dispatch reports does not depend on when the test's INSERT lands.
    if (listen) {
      execute("NOTIFY inbox_" + inbox);
      await().atMost(Duration.ofSeconds(10)).until(() -> events.wakeUps(WakeUpCause.NOTIFY) >= 1);
    } else {
      await().atMost(Duration.ofSeconds(10)).until(() -> events.wakeUps(WakeUpCause.POLL) >= 1);
    }
    return worker;
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void five_messages_of_one_transaction_give_a_full_batch_at_once_and_the_rest_after_the_timeout(
      boolean listen) {
    String inbox = newInbox("batching");
    RecordingListener events = new RecordingListener();
    start(inbox, listen, events, 3, Duration.ofMillis(500));

    insert(inbox, "m", 0, 5, 5); // one INSERT statement, one notification
    await().atMost(Duration.ofSeconds(10)).until(() -> events.committed.get() == 5);

    assertThat(events.dispatches)
        .extracting(RecordingListener.Dispatched::count)
        .containsExactly(3, 2);
    assertThat(events.dispatches)
        .extracting(RecordingListener.Dispatched::reason)
        .containsExactly(DispatchReason.MAX_REACHED, DispatchReason.TIMEOUT);
    assertThat(events.dispatches.get(0).lastWakeUp())
        .isEqualTo(listen ? WakeUpCause.NOTIFY : WakeUpCause.POLL);
    assertThat(events.dispatches.get(1).lastWakeUp()).isEqualTo(WakeUpCause.TIMEOUT);
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void full_batches_go_out_back_to_back_without_waiting_for_the_timeout(boolean listen) {
    String inbox = newInbox("backtoback");
    RecordingListener events = new RecordingListener();
    // A timeout far beyond the test's patience: only full batches may go out.
    start(inbox, listen, events, 10, Duration.ofHours(1));
    insert(inbox, "m", 0, 95, 95);
    await().atMost(Duration.ofSeconds(20)).until(() -> events.committed.get() == 90);
    assertThat(events.dispatches)
        .hasSize(9)
        .allSatisfy(
            d -> {
              assertThat(d.count()).isEqualTo(10);
              assertThat(d.reason()).isEqualTo(DispatchReason.MAX_REACHED);
            });
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isEqualTo(5);
  }

  /**
   * A full batch is the count: while batches come back full, the next go out without one. On an
   * ordered inbox a count tests a window of twice a batch for heads; it ran before nearly every
   * batch (to fill the spare order, and once a poll interval), found nothing to add while the batch
   * in flight held the heads, and took longer than a claim of 1,000. Here every count blocks (the
   * ordering catalog is locked: counts read it, claims do not), and the drain must go on. The
   * polling worker looks every millisecond, so that some looks land between a processor giving its
   * slot back and posting its full batch's hint: those must not count either.
   */
  @ParameterizedTest(name = "listen={0}, batch timeout {1} s")
  @CsvSource({"true, 0", "false, 0", "true, 3600", "false, 3600"})
  void an_ordered_drain_goes_out_in_full_batches_without_counting(
      boolean listen, int timeoutSeconds) {
    String inbox = newInbox("nocount");
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'seq')");
    RecordingListener events = new RecordingListener();
    start(
        inbox,
        listen,
        events,
        10,
        Duration.ofSeconds(timeoutSeconds),
        Duration.ofMillis(listen ? 10_000 : 1));
    insert(inbox, "m", 0, 1_000, 100); // every claim of 10 finds 10 heads, to the last
    await().atMost(Duration.ofSeconds(10)).until(() -> events.committed.get() >= 10);
    try (Handle lock = JDBI.open()) {
      lock.begin();
      lock.execute("LOCK TABLE inbox.inbox_ordering_config IN ACCESS EXCLUSIVE MODE");
      // Less than the coordinator's 10 s bound on a count's answer: no count may be waited out.
      await().atMost(Duration.ofSeconds(8)).until(() -> events.committed.get() == 1_000);
      lock.rollback();
    }
    assertThat(events.dispatches).hasSize(100).allSatisfy(d -> assertThat(d.count()).isEqualTo(10));
  }

  /**
   * With a zero batch timeout any waiting message makes a batch. Workers that share an ordered
   * inbox's heads get short batches all the time, and a count after each (on an ordered inbox as
   * costly as a claim) doubled the server's work: on an ordered inbox a batch that came back short
   * but not empty is followed by the next claim, not a count. Here every count blocks (the ordering
   * catalog is locked), and every claim finds 10 heads of a batch of 100: the drain must go on,
   * polls every millisecond included.
   */
  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_drain_of_short_batches_claims_again_without_counting(boolean listen) {
    String inbox = newInbox("shortdrain");
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'seq')");
    RecordingListener events = new RecordingListener();
    start(inbox, listen, events, 100, Duration.ZERO, Duration.ofMillis(listen ? 10_000 : 1));
    try (Handle lock = JDBI.open()) {
      lock.begin();
      if (listen) {
        // The notification goes straight to a processor: no count from the start.
        lock.execute("LOCK TABLE inbox.inbox_ordering_config IN ACCESS EXCLUSIVE MODE");
        insert(inbox, "m", 0, 2_000, 10); // 10 aggregates: 10 heads at a time
      } else {
        insert(inbox, "m", 0, 2_000, 10); // the poll that finds them counts
        await()
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(1))
            .until(() -> events.committed.get() >= 10);
        lock.execute("LOCK TABLE inbox.inbox_ordering_config IN ACCESS EXCLUSIVE MODE");
      }
      await().atMost(Duration.ofSeconds(8)).until(() -> events.committed.get() == 2_000);
      lock.rollback();
    }
    assertThat(events.dispatches).hasSize(200).allSatisfy(d -> assertThat(d.count()).isEqualTo(10));
  }

  /**
   * On an ordered inbox with a zero batch timeout, the coordinator does not count while its
   * processors hold orders: the batch in flight ends with the hint that gives the next. A count
   * then (to queue the spare order) probed a window of twice a batch for heads that batch held:
   * with four workers at batch 1,000, about 50 counts of 13-16 ms in a drain of 100,000. Here every
   * count blocks (the ordering catalog is locked) while the only processor's handler waits: the
   * coordinator must go on looking at every poll, and the drain must finish without a count.
   */
  @Test
  void an_ordered_worker_does_not_count_while_its_processor_holds_a_batch() throws Exception {
    String inbox = newInbox("busycount");
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'seq')");
    RecordingListener events = new RecordingListener();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, false)
                        .batchSize(10)
                        .batchTimeout(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(1))
                        .build())
                .listener(events)
                .handler(
                    (m, tx) -> {
                      entered.countDown();
                      assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
                      return Outcome.processed();
                    })
                .build())
        .start();
    insert(inbox, "m", 0, 20, 2); // two aggregates: two heads at a time
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    try (Handle lock = JDBI.open()) {
      lock.begin();
      lock.execute("LOCK TABLE inbox.inbox_ordering_config IN ACCESS EXCLUSIVE MODE");
      long polls = events.wakeUps(WakeUpCause.POLL);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> events.wakeUps(WakeUpCause.POLL) >= polls + 50);
      release.countDown();
      await().atMost(Duration.ofSeconds(8)).until(() -> events.committed.get() == 20);
      lock.rollback();
    }
    assertThat(events.dispatches).hasSize(10).allSatisfy(d -> assertThat(d.count()).isEqualTo(2));
  }

  /**
   * On an ordered inbox with a zero batch timeout, a claim after a batch that got at most half its
   * limit asks for a quarter more than that batch got, so that workers sharing the heads each take
   * about their share instead of walking past each other's; after a batch that filled its limit the
   * limit doubles, back to the batch size.
   */
  @Test
  void after_a_short_batch_the_next_claim_asks_for_about_as_many() {
    String inbox = newInbox("share");
    execute("SELECT inbox.enable_inbox_ordering('" + inbox + "', 'aggregate_id', 'seq')");
    RecordingListener events = new RecordingListener();
    start(inbox, true, events, 100, Duration.ZERO);
    insert(inbox, "a", 0, 30, 10); // 10 heads at a time: three batches of 10 of a limit of 100
    await().atMost(Duration.ofSeconds(10)).until(() -> events.committed.get() == 30);
    assertThat(events.dispatches)
        .extracting(RecordingListener.Dispatched::count)
        .containsExactly(10, 10, 10);
    insert(inbox, "b", 0, 100, 100); // 100 heads at once
    await().atMost(Duration.ofSeconds(10)).until(() -> events.committed.get() == 130);
    // 10 + 10 / 4 + 1 = 13, then doubling: 26, 52, and the 9 left.
    assertThat(events.dispatches.subList(3, events.dispatches.size()))
        .extracting(RecordingListener.Dispatched::count)
        .containsExactly(13, 26, 52, 9);
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_zero_batch_timeout_dispatches_whatever_is_waiting_at_once(boolean listen) {
    String inbox = newInbox("zerotimeout");
    RecordingListener events = new RecordingListener();
    start(inbox, listen, events, 100, Duration.ZERO);
    for (int i = 0; i < 3; i++) {
      insert(inbox, "m" + i, 0, 1, 1);
      int expected = i + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> events.committed.get() == expected);
    }
    assertThat(events.dispatches)
        .extracting(RecordingListener.Dispatched::reason)
        .containsOnly(DispatchReason.TIMEOUT);
    if (listen) {
      assertThat(events.dispatches)
          .extracting(RecordingListener.Dispatched::lastWakeUp)
          .containsOnly(WakeUpCause.NOTIFY);
    }
  }

  @ParameterizedTest(name = "listen={0}")
  @ValueSource(booleans = {true, false})
  void a_zero_batch_timeout_drains_a_backlog_in_full_batches_and_sends_the_rest_at_once(
      boolean listen) {
    String inbox = newInbox("zerodrain");
    RecordingListener events = new RecordingListener();
    start(inbox, listen, events, 10, Duration.ZERO);
    insert(inbox, "m", 0, 95, 95); // one notification for the lot
    await().atMost(Duration.ofSeconds(20)).until(() -> events.committed.get() == 95);
    assertThat(events.dispatches)
        .extracting(RecordingListener.Dispatched::count)
        .containsExactly(10, 10, 10, 10, 10, 10, 10, 10, 10, 5);
    assertThat(events.dispatches.subList(0, 9))
        .extracting(RecordingListener.Dispatched::reason)
        .containsOnly(DispatchReason.MAX_REACHED);
    assertThat(events.dispatches.get(9).reason()).isEqualTo(DispatchReason.TIMEOUT);
  }

  /**
   * With a zero timeout a notification goes straight to a processor; one that arrives while the
   * only processor is busy must still be acted on once it is free, long before the next poll.
   */
  @Test
  void messages_notified_while_the_processor_is_busy_are_claimed_when_it_is_free()
      throws Exception {
    String inbox = newInbox("busy");
    RecordingListener events = new RecordingListener();
    CountDownLatch release = new CountDownLatch(1);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true)
                        .batchSize(100)
                        .batchTimeout(Duration.ZERO)
                        .concurrency(1)
                        .pollInterval(Duration.ofHours(1))
                        .build())
                .listener(events)
                .handler(
                    (m, tx) -> {
                      if (m.eventId().equals("first0")) {
                        release.await(30, TimeUnit.SECONDS);
                      }
                      return Outcome.processed();
                    })
                .build());
    worker.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> events.wakeUps(WakeUpCause.CONNECTED) >= 2);
    insert(inbox, "first", 0, 1, 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> events.dispatches.size() == 1);
    for (int i = 0; i < 5; i++) { // one transaction and one notification each, the processor busy
      insert(inbox, "later" + i, 0, 1, 1);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> events.wakeUps(WakeUpCause.NOTIFY) >= 1);
    release.countDown();
    await().atMost(Duration.ofSeconds(20)).until(() -> events.committed.get() == 6);
    assertThat(events.wakeUps(WakeUpCause.POLL)).isZero();
  }
}
