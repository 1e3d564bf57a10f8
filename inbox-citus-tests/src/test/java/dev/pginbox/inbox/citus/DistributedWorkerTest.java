package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The worker runtime ({@link PostgresInboxWorker}) on a distributed inbox: it finds the inbox
 * distributed at start and claims shard by shard. Two workers share the shards and handle every
 * message once, in order per aggregate, their writes to the co-located table on the claim's node;
 * when one is cut off, the other takes its shards over once their leases expire and drains the
 * rest. A worker started while the coordinator is unreachable finds out once it answers. A batch
 * handler works there too; what a shard's claim cannot do is refused at start.
 */
class DistributedWorkerTest {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final Duration LEASE = Duration.ofSeconds(2);

  @Test
  void two_workers_share_the_shards_and_one_takes_over_when_the_other_is_cut_off()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "runtime", 40);
    int shards = (int) s.count("SELECT count(*) FROM inbox.inbox_shards('" + s.inbox + "')");
    DataSource coordinator = SharedCluster.dataSource(cluster.coordinatorUrl());
    CuttableDataSource cuttable = new CuttableDataSource(coordinator);
    AtomicInteger handledByA = new AtomicInteger();
    AtomicInteger handledByB = new AtomicInteger();
    // a: the nodes reached through copies of its pgJDBC DataSource; b: through the builder option.
    InboxWorker a = worker(coordinator, s, "a", counting(s.handler(), handledByA)).build();
    InboxWorker b =
        worker(cuttable, s, "b", counting(s.handler(), handledByB))
            .nodeDataSources(
                (host, port) ->
                    cuttable.sameLine(SharedCluster.dataSource(CitusCluster.url(host, port))))
            .build();
    a.start();
    b.start();
    try {
      await().atMost(WAIT).until(() -> sharesAll(shards, a, b) && !b.heldPartitions().isEmpty());
      s.send(5);
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
      assertThat(handledByA).as("handled by a").hasPositiveValue();
      assertThat(handledByB).as("handled by b").hasPositiveValue();

      cuttable.cut();
      s.send(5);
      await().atMost(WAIT).until(() -> a.heldPartitions().size() == shards);
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
    } finally {
      b.stop();
      a.stop();
    }
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  void a_worker_started_while_the_coordinator_is_unreachable_claims_shard_by_shard_once_it_answers()
      throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "unreachable", 20);
    int shards = (int) s.count("SELECT count(*) FROM inbox.inbox_shards('" + s.inbox + "')");
    s.send(3);
    CuttableDataSource cuttable =
        new CuttableDataSource(SharedCluster.dataSource(cluster.coordinatorUrl()));
    cuttable.cut();
    AtomicInteger lost = new AtomicInteger();
    InboxWorker worker =
        worker(cuttable, s, "late", s.handler())
            .nodeDataSources(
                (host, port) ->
                    cuttable.sameLine(SharedCluster.dataSource(CitusCluster.url(host, port))))
            .listener(
                new WorkerListener() {
                  @Override
                  public void onConnectionLost(Throwable error, Duration retryIn) {
                    lost.incrementAndGet();
                  }
                })
            .build();
    worker.start();
    try {
      await().atMost(WAIT).until(() -> lost.get() >= 2);
      assertThat(worker.isRunning()).isTrue();
      cuttable.restore();
      // A single-server worker would hold the one partition of its automatic assignment.
      await().atMost(WAIT).until(() -> worker.heldPartitions().size() == shards);
      s.send(2);
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
    } finally {
      worker.stop();
    }
    assertThat(worker.failure()).isEmpty();
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  void a_batch_handler_writes_the_whole_batch_on_the_claims_node() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "batches", 20);
    s.send(4);
    MessageHandler each = s.handler();
    AtomicInteger batches = new AtomicInteger();
    InboxWorker worker =
        PostgresInboxWorker.builder(
                SharedCluster.dataSource(cluster.coordinatorUrl()), options(s).build())
            .batchHandler(
                (batch, tx) -> {
                  for (InboxMessage m : batch) {
                    each.handle(m, tx);
                  }
                  batches.incrementAndGet();
                  return BatchResult.allProcessed();
                })
            .build();
    worker.start();
    try {
      await().atMost(WAIT).until(() -> s.processedMessages() == s.sent());
    } finally {
      worker.stop();
    }
    assertThat(batches).hasPositiveValue();
    s.assertEveryMessageHandledOnceInOrder();
  }

  @Test
  void what_a_shard_claim_cannot_do_is_refused_at_start() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "refused", 1);
    InboxWorker worker =
        PostgresInboxWorker.builder(
                SharedCluster.dataSource(cluster.coordinatorUrl()),
                options(s).claimAhead(true).build())
            .handler(s.handler())
            .build();
    assertThatThrownBy(worker::start)
        .isInstanceOf(InvalidInboxArgumentException.class)
        .hasMessageContaining("distributed")
        .hasMessageContaining("claimAhead");
    assertThat(worker.isRunning()).isFalse();
  }

  private static WorkerOptions.Builder options(Scenario s) {
    return WorkerOptions.builder(s.inbox)
        .batchSize(10)
        .pollInterval(Duration.ofMillis(50))
        .partitions(new PartitionAssignment.Automatic(1, LEASE));
  }

  /** Two processors each: they share the shards held by their row locks. */
  private static PostgresInboxWorker.Builder worker(
      DataSource dataSource, Scenario s, String id, MessageHandler handler) {
    return PostgresInboxWorker.builder(dataSource, options(s).concurrency(2).build())
        .handler(handler)
        .workerId(id);
  }

  private static MessageHandler counting(MessageHandler handler, AtomicInteger handled) {
    return (message, tx) -> {
      Outcome outcome = handler.handle(message, tx);
      handled.incrementAndGet();
      return outcome;
    };
  }

  /** Every shard held by exactly one of the workers. */
  private static boolean sharesAll(int shards, InboxWorker a, InboxWorker b) {
    Set<Integer> all = new HashSet<>(a.heldPartitions());
    all.addAll(b.heldPartitions());
    return all.size() == shards && a.heldPartitions().size() + b.heldPartitions().size() == shards;
  }
}
