package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.HandlerAbortException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One processing thread with its own connection: takes dispatches from the coordinator and runs
 * their batches. A processor that replaces one whose batch timed out first records that batch's
 * failed attempts (the old transaction is gone with its connection), then carries on.
 */
final class Processor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(Processor.class);

  private final WorkerRun run;
  private final WorkerContext ctx;
  private final BatchRunner runner;
  private final Batch timedOut;
  private final Dispatch timedOutDispatch;
  private final Backoff backoff;
  private WorkerConnection wc;

  Processor(WorkerRun run, WorkerContext ctx, Batch timedOut, Dispatch timedOutDispatch) {
    this.run = run;
    this.ctx = ctx;
    this.runner = new BatchRunner(ctx);
    this.timedOut = timedOut;
    this.timedOutDispatch = timedOutDispatch;
    this.backoff =
        new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
  }

  @Override
  public void run() {
    try {
      if (timedOut != null) {
        recordTimeout();
      }
      Dispatch d;
      while ((d = run.nextDispatch()) != null) {
        if (!runOne(d)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeConnection();
    }
  }

  /** Runs one dispatch; false when this processor must end (its batch was taken away). */
  private boolean runOne(Dispatch d) throws InterruptedException {
    int claimed = 0;
    boolean handOver = false;
    boolean failed = false;
    try {
      ensureConnection();
      claimed = runner.run(wc, d.reason, d.minimum, run.tracker(d));
      backoff.reset();
    } catch (BatchRunner.TakenAwayException e) {
      closeConnection(); // aborted with the batch
      // A timed-out batch is completed by the replacement processor, once it has recorded the
      // failures.
      handOver = d.timedOut;
      return false;
    } catch (HandlerAbortException e) {
      LOG.error(
          "inbox {}: handler aborted; the batch is rolled back and the worker stops",
          ctx.inbox(),
          e);
      run.fail(e);
    } catch (SQLException e) {
      failed = true;
      connectionLost(e);
    } catch (RuntimeException e) {
      failed = true;
      LOG.error("inbox {}: unexpected error in a batch; reconnecting", ctx.inbox(), e);
      connectionLost(new SQLException(e));
    } finally {
      if (!handOver) {
        // After a failure (and the backoff, slept above) the messages may be waiting again: look
        // again.
        run.dispatchDone(d, claimed, failed);
      }
    }
    return true;
  }

  private void recordTimeout() throws InterruptedException {
    List<Failure> failures = new ArrayList<>();
    for (String id : timedOut.eventIds) {
      failures.add(
          Failure.of(
              id,
              "processing timeout: the handler ran longer than "
                  + ctx.options().processingTimeout()));
    }
    try {
      while (!run.stopping()) {
        try {
          ensureConnection();
          BatchRunner.recordFailures(wc, ctx, failures);
          LOG.warn(
              "inbox {}: a batch of {} timed out after {}; rolled back and recorded as failed attempts",
              ctx.inbox(),
              failures.size(),
              ctx.options().processingTimeout());
          return;
        } catch (SQLException e) {
          connectionLost(e);
        }
      }
    } finally {
      run.dispatchDone(timedOutDispatch, failures.size(), false);
    }
  }

  private void ensureConnection() throws SQLException {
    if (wc == null) {
      wc = WorkerConnection.open(ctx.jdbi(), ctx.inbox(), true, "processor");
    }
  }

  private void connectionLost(SQLException e) throws InterruptedException {
    closeConnection();
    ctx.metrics().reconnects.increment();
    java.time.Duration delay = backoff.next();
    LOG.warn(
        "inbox {}: processor connection failed ({}); retrying in {} ms",
        ctx.inbox(),
        e.getMessage(),
        delay.toMillis());
    run.sleep(delay);
  }

  private void closeConnection() {
    if (wc != null) {
      wc.close();
      wc = null;
    }
  }
}
