package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchOutcome;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner;
import dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.ShardBatchStore;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.internal.worker.connection.DedicatedConnection;
import dev.pginbox.inbox.postgres.internal.worker.connection.ShardNodes;
import dev.pginbox.inbox.postgres.internal.worker.connection.StartupCheck;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import dev.pginbox.inbox.postgres.internal.worker.membership.ClaimScope;
import dev.pginbox.inbox.postgres.internal.worker.membership.LeaseKeeper;
import dev.pginbox.inbox.postgres.internal.worker.membership.Shard;
import dev.pginbox.inbox.postgres.internal.worker.membership.ShardMap;
import dev.pginbox.inbox.postgres.internal.worker.membership.ShardSettings;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code runOnce()}: in the calling thread, one batch on a single server, or one batch from each
 * shard of a distributed inbox (the path of {@link ShardProcessor}, without leases: the claim's row
 * locks keep each message to one transaction and each aggregate in order). No watchdog: the claim's
 * server-side bound is its limit. Whether the inbox is distributed is read at the first call.
 */
final class RunOnce {

  /** No watchdog and no reservation: see the class comment. */
  private static final BatchRunner.Tracker UNWATCHED =
      new BatchRunner.Tracker() {
        @Override
        public void claimed(int count) {}

        @Override
        public Runnable watch(InFlightBatch batch) {
          return () -> {};
        }
      };

  private final WorkerContext ctx;

  /** The first call found the inbox on a single server: the later ones need not ask. */
  private volatile boolean singleServer;

  RunOnce(WorkerContext ctx) {
    this.ctx = ctx;
  }

  /** The messages claimed; {@code running}: the worker's threads run (and hold its leases). */
  int run(boolean running) {
    if (!singleServer) {
      Integer claimed = shards();
      if (claimed != null) {
        return claimed;
      }
      singleServer = true;
    }
    return single(running);
  }

  private int single(boolean running) {
    if (ctx.scope().automatic() && !running) {
      // No heartbeat thread: take part in the leases once, so the claim has partitions to guard.
      LeaseKeeper keeper =
          new LeaseKeeper(
              ctx.jdbi(),
              ctx.inbox(),
              ctx.config().workerId(),
              ctx.scope(),
              ctx.events(),
              (PartitionAssignment.Automatic) ctx.options().partitions(),
              () -> {});
      keeper.heartbeat();
      keeper.closeConnection();
    }
    DedicatedConnection own =
        ctx.given().boundary() == null
            ? new DedicatedConnection(
                ctx.jdbi(), ctx.inbox(), ctx.options().processingTimeout(), null)
            : null;
    try {
      BatchRunner runner =
          BatchWiring.runner(
              ctx,
              BatchWiring.transactions(ctx, own != null ? own : ctx.given().boundary()),
              new Suspects(),
              new OutcomeRecorder(ctx.inbox(), ctx.events()),
              false,
              null);
      return claimed(runner.run(DispatchReason.MANUAL, 1, ctx.options().batchSize(), UNWATCHED));
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /**
   * On a distributed inbox, a batch from each of its shards, on the shard's node; the messages
   * claimed in all. Null when the inbox is on a single server.
   */
  private Integer shards() {
    ShardSettings settings;
    List<Shard> shards;
    try (WorkerConnection coordinator =
        WorkerConnection.open(ctx.jdbi(), ctx.inbox(), false, "runOnce")
            .answersWithin(WorkerConnection.SHORT_ANSWER)) {
      if (!StartupCheck.distributed(coordinator, ctx.inbox())) {
        return null;
      }
      settings = ShardSettings.read(coordinator, ctx.inbox());
      shards = ShardMap.all(coordinator, ctx.inbox());
    } catch (SQLException e) {
      throw new InboxException("runOnce failed: " + e, ctx.inbox(), e);
    }
    ShardRun.check(ctx.options(), ctx.given().boundary() != null);
    // Every shard is visited: the batch core's scope is every bucket.
    WorkerContext all =
        ctx.withScope(
            new ClaimScope(new PartitionAssignment.All(), ctx.inbox(), ctx.config().workerId()));
    ShardBatchStore store =
        new ShardBatchStore(
            ShardNodes.of(ctx.given().nodeDataSources(), ctx.given().dataSource(), ctx.inbox()),
            ctx.options());
    try {
      BatchRunner runner =
          BatchWiring.runner(
              all,
              store,
              new Suspects(),
              new OutcomeRecorder(ctx.inbox(), ctx.events()),
              false,
              null);
      int claimed = 0;
      for (Shard shard : shards) {
        store.visit(shard, settings);
        claimed +=
            claimed(runner.run(DispatchReason.MANUAL, 1, ctx.options().batchSize(), UNWATCHED));
      }
      return claimed;
    } finally {
      store.close();
    }
  }

  /** What a batch of runOnce returns: its messages claimed, or the exception that ended it. */
  private int claimed(BatchOutcome outcome) {
    return switch (outcome.kind()) {
      case EMPTY, HEAD_RELEASED, COMMITTED, ROLLED_BACK -> outcome.claimed();
      case HANDLER_ABORTED -> throw (RuntimeException) outcome.cause();
      default ->
          throw new InboxException(
              "runOnce failed: " + outcome.cause(), ctx.inbox(), outcome.cause());
    };
  }
}
