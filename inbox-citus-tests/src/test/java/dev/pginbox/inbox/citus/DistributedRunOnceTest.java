package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import org.junit.jupiter.api.Test;

/**
 * {@code runOnce()} on a distributed inbox: one batch from every shard, on the shard's node, in the
 * calling thread; an ordered inbox gives each aggregate's head only, so each call takes one more
 * message of every aggregate.
 */
class DistributedRunOnceTest {

  private static final int AGGREGATES = 20;

  @Test
  void run_once_drains_a_distributed_inbox_across_its_shards() throws Exception {
    CitusCluster cluster = SharedCluster.get();
    Scenario s = Scenario.distributed(cluster, "once", AGGREGATES);
    s.send(2);
    assertThat(
            s.count(
                "SELECT count(DISTINCT get_shard_id_for_distribution_column('inbox."
                    + s.inbox
                    + "', aggregate_id)) FROM inbox."
                    + s.inbox))
        .as("shards holding messages")
        .isGreaterThan(1);
    InboxWorker worker =
        PostgresInboxWorker.builder(
                SharedCluster.dataSource(cluster.coordinatorUrl()),
                WorkerOptions.builder(s.inbox).batchSize(100).build())
            .handler(s.handler())
            .build();

    assertThat(worker.runOnce()).as("first runOnce: every aggregate's head").isEqualTo(AGGREGATES);
    assertThat(worker.runOnce()).as("second runOnce: the next ones").isEqualTo(AGGREGATES);
    assertThat(worker.runOnce()).as("nothing left").isZero();
    s.assertEveryMessageHandledOnceInOrder();
  }
}
