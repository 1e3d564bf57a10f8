package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.batch.BatchOutcome;
import dev.pginbox.inbox.postgres.internal.worker.batch.BatchRunner;
import dev.pginbox.inbox.postgres.internal.worker.batch.InFlightBatch;
import dev.pginbox.inbox.postgres.internal.worker.batch.OutcomeRecorder;
import dev.pginbox.inbox.postgres.internal.worker.batch.ShardBatchStore;
import dev.pginbox.inbox.postgres.internal.worker.batch.Suspects;
import dev.pginbox.inbox.postgres.internal.worker.batch.TimeoutRecovery;
import dev.pginbox.inbox.postgres.internal.worker.connection.Backoff;
import dev.pginbox.inbox.postgres.internal.worker.connection.RunControl;
import dev.pginbox.inbox.postgres.internal.worker.connection.ShardNodes;
import dev.pginbox.inbox.postgres.internal.worker.connection.SqlStates;
import dev.pginbox.inbox.postgres.internal.worker.membership.Shard;
import dev.pginbox.inbox.postgres.internal.worker.membership.ShardMap;
import dev.pginbox.inbox.postgres.internal.worker.membership.ShardSettings;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A processing thread of a worker on a distributed inbox: visits the shards the worker holds in
 * turn ({@link ShardMap}), each visit one batch in one transaction on the shard's node ({@link
 * ShardBatchStore}) run by the same {@link BatchRunner} as on a single server (handler parts,
 * savepoints, failures, events), and sleeps a poll interval after a round that claimed nothing. The
 * processors of a worker start their rounds at different shards; a shard two of them visit at once
 * is shared by its row locks.
 *
 * <p>The processing timeout as on a single server ({@link Processor}): the {@link Watchdog} takes a
 * batch past it away, and this thread is written off; a replacement, with node connections of its
 * own, ends the batch on the batch's node connection ({@link TimeoutRecovery}) and carries on
 * visiting the shards in its place.
 */
final class ShardProcessor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(ShardProcessor.class);

  /** The longest a processor waits for claim permits before it checks for stop again. */
  private static final Duration PERMIT_WAIT = Duration.ofMillis(500);

  /** What every processor of a run shares; {@code start} starts a replacement's thread. */
  record Shared(
      RunControl run,
      WorkerContext ctx,
      ShardMap map,
      ShardNodes nodes,
      Suspects suspects,
      OutcomeRecorder recorder,
      Watchdog watchdog,
      TimeoutRecovery recovery,
      Consumer<ShardProcessor> start) {}

  private final Shared shared;
  private final RunControl run;
  private final WorkerContext ctx;
  private final ShardBatchStore store;
  private final BatchRunner runner;
  private final Backoff backoff;
  private final int first;
  private final InFlightBatch timedOut;

  /** Its batch was taken away at the processing timeout: this thread ends. */
  private boolean replaced;

  /** {@code first}: where in the list of shards held this processor starts its rounds. */
  ShardProcessor(Shared shared, int first) {
    this(shared, first, null);
  }

  /** {@code timedOut}: the batch a replacement ends before anything else (null: none). */
  private ShardProcessor(Shared shared, int first, InFlightBatch timedOut) {
    this.shared = shared;
    this.run = shared.run();
    this.ctx = shared.ctx();
    this.store = new ShardBatchStore(shared.nodes(), ctx.options());
    this.runner = BatchWiring.runner(ctx, store, shared.suspects(), shared.recorder(), false, null);
    this.backoff =
        new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
    this.first = first;
    this.timedOut = timedOut;
  }

  @Override
  public void run() {
    try {
      if (timedOut != null) {
        shared.recovery().end(timedOut);
      }
      while (!run.stopping()) {
        int claimed = round();
        if (replaced) {
          return;
        }
        if (claimed == 0) {
          run.sleep(ctx.options().pollInterval());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      store.close();
    }
  }

  /** One visit to each shard held; the messages claimed. */
  private int round() throws InterruptedException {
    List<Shard> shards = shared.map().held();
    ShardSettings settings = shared.map().settings();
    int claimed = 0;
    for (int i = 0; i < shards.size() && !run.stopping() && !replaced; i++) {
      claimed += visit(shards.get((first + i) % shards.size()), settings);
    }
    return claimed;
  }

  /** One batch from {@code shard}; the messages claimed. */
  private int visit(Shard shard, ShardSettings settings) throws InterruptedException {
    int batchSize = ctx.options().batchSize();
    int granted = 0;
    while (granted == 0 && !run.stopping()) {
      granted = Math.min(batchSize, ctx.given().permits().acquire(batchSize, PERMIT_WAIT));
    }
    if (granted == 0) {
      return 0;
    }
    PermitGrant grant = new PermitGrant(ctx.given().permits(), granted);
    store.visit(shard, settings);
    BatchOutcome outcome = runner.run(null, 1, granted, tracker(grant));
    grant.keep(outcome.claimed());
    switch (outcome.kind()) {
      case EMPTY, COMMITTED, HEAD_RELEASED -> {
        backoff.reset();
        ctx.events().recovered("processor");
        return outcome.claimed();
      }
      case HANDLER_ABORTED -> run.fail(outcome.cause());
      case CONNECTION_LOST, REFUSED, OUT_OF_MEMORY -> connectionLost(shard, outcome.cause());
      case TIMED_OUT -> replaced = true; // the replacement carries on
      case ROLLED_BACK, STOPPED, COMMIT_FAILED -> {
        // Rolled back: the messages wait again, this shard is visited again next round.
      }
    }
    return 0;
  }

  /** The claim keeps its permits; the handler runs under the watchdog. */
  private BatchRunner.Tracker tracker(PermitGrant grant) {
    return new BatchRunner.Tracker() {
      @Override
      public void claimed(int count) {
        grant.keep(count);
      }

      @Override
      public Runnable watch(InFlightBatch batch) {
        return shared
            .watchdog()
            .watch(
                batch,
                b -> {
                  ctx.events().processingTimedOut(b.eventIds());
                  shared.start().accept(new ShardProcessor(shared, first, b));
                });
      }
    };
  }

  private void connectionLost(Shard shard, Throwable e) throws InterruptedException {
    Duration delay = backoff.next();
    ctx.events().connectionLost(e, delay, false);
    ctx.events().processorConnectionLost(e, delay);
    LOG.warn(
        "inbox {}: a batch on node {} failed ({}); retrying in {} ms",
        ctx.inbox(),
        shard.node(),
        SqlStates.describe(e),
        delay.toMillis());
    run.sleep(delay);
  }

  /** From the stopping thread: cuts this processor's node connections (the nodes roll back). */
  void abort() {
    store.abort();
  }
}
