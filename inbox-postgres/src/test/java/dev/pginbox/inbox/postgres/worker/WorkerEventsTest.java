package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * What a worker tells the application besides the LISTEN connection: partitions gained and lost
 * (and the partitions it holds), processing timeouts, and its processors' lost connections.
 */
class WorkerEventsTest extends WorkerTestSupport {

  @Test
  void partition_gains_and_losses_are_reported_and_the_held_partitions_are_exposed() {
    String inbox = newInbox("part_events");
    PartitionAssignment auto = new PartitionAssignment.Automatic(4, Duration.ofSeconds(1));
    AtomicReference<Set<Integer>> lastReportedA = new AtomicReference<>(Set.of());
    SimpleMeterRegistry registryA = new SimpleMeterRegistry();
    InboxWorker a =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).partitions(auto).build())
                .workerId("a")
                .handler((m, tx) -> Outcome.processed())
                .meterRegistry(registryA)
                .listener(
                    new WorkerListener() {
                      @Override
                      public void onPartitionsChanged(Set<Integer> held, int partitions) {
                        assertThat(partitions).isEqualTo(4);
                        lastReportedA.set(held);
                      }
                    })
                .build());
    InboxWorker b =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).partitions(auto).build())
                .workerId("b")
                .handler((m, tx) -> Outcome.processed())
                .build());
    a.start();
    b.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                a.heldPartitions().size() == 2
                    && b.heldPartitions().size() == 2
                    && lastReportedA.get().equals(a.heldPartitions()));
    Set<Integer> all = new HashSet<>(a.heldPartitions());
    all.addAll(b.heldPartitions());
    assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);

    b.stop(); // gives its leases back: a takes them over
    assertThat(b.heldPartitions()).isEmpty();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> lastReportedA.get().equals(Set.of(0, 1, 2, 3)));
    assertThat(a.heldPartitions()).containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(registryA.get("inbox.partitions.held").gauge().value()).isEqualTo(4.0);
    assertThat(registryA.get("inbox.partitions.changes").counter().count()).isGreaterThan(1.0);
  }

  @Test
  void a_processing_timeout_is_reported_with_the_batch_and_counted() throws Exception {
    String inbox = newInbox("timeout_events");
    insert(inbox, "t", 0, 1, 1);
    List<List<String>> timedOut = new CopyOnWriteArrayList<>();
    CountDownLatch release = new CountDownLatch(1);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicBoolean first = new AtomicBoolean(true);
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true).processingTimeout(Duration.ofMillis(500)).build())
                .handler(
                    (m, tx) -> {
                      if (first.getAndSet(false)) {
                        release.await(); // hangs until the test is done with it
                      }
                      return Outcome.processed();
                    })
                .meterRegistry(registry)
                .listener(
                    new WorkerListener() {
                      @Override
                      public void onProcessingTimeout(List<String> eventIds) {
                        timedOut.add(eventIds);
                      }
                    })
                .build());
    try {
      worker.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> !timedOut.isEmpty());
      assertThat(timedOut.get(0)).containsExactly("t-0");
      assertThat(registry.get("inbox.processing.timeouts").counter().count()).isEqualTo(1.0);
    } finally {
      release.countDown();
    }
  }

  @Test
  void a_processors_lost_connection_is_reported_and_the_batch_retried() {
    String inbox = newInbox("processor_lost");
    insert(inbox, "p", 0, 5, 5);
    AtomicInteger processorLost = new AtomicInteger();
    AtomicInteger listenLost = new AtomicInteger();
    AtomicBoolean killed = new AtomicBoolean();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).build())
                .handler(
                    (m, tx) -> {
                      if (!killed.getAndSet(true)) {
                        // The processor's own backend goes away in the middle of the batch.
                        tx.unwrap(Handle.class)
                            .execute("SELECT pg_terminate_backend(pg_backend_pid())");
                      }
                      recordHandled(
                          tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
                      return Outcome.processed();
                    })
                .listener(
                    new WorkerListener() {
                      @Override
                      public void onProcessorConnectionLost(Throwable error, Duration retryIn) {
                        processorLost.incrementAndGet();
                      }

                      @Override
                      public void onConnectionLost(Throwable error, Duration retryIn) {
                        listenLost.incrementAndGet();
                      }
                    })
                .build());
    worker.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 5);
    assertThat(processorLost.get()).isEqualTo(1);
    assertThat(listenLost.get()).isZero(); // the LISTEN connection never failed
  }
}
