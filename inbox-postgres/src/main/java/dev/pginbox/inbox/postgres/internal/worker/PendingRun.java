package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.postgres.internal.worker.connection.Backoff;
import dev.pginbox.inbox.postgres.internal.worker.connection.ReconnectLoop;
import dev.pginbox.inbox.postgres.internal.worker.connection.StartupCheck;
import dev.pginbox.inbox.postgres.internal.worker.connection.WorkerConnection;
import java.sql.SQLException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run of a worker whose database did not answer at start: until it does, nobody can tell
 * whether the inbox is distributed, so neither {@link RunningWorker} nor {@link ShardRun} may claim
 * yet. One thread runs the start check again with the reconnect backoff, reporting each failure as
 * the worker's connection lost; once the database answers it starts the run the check calls for and
 * hands everything on to it. A mistake found then (a missing inbox, refused credentials, options a
 * shard's claim cannot do) fails the worker, as a handler that aborts does.
 */
final class PendingRun extends RunState {

  /** The start check, throwing the {@link SQLException} when the database does not answer. */
  interface Check {
    StartupCheck.Checked run() throws SQLException;
  }

  private static final Logger LOG = LoggerFactory.getLogger(PendingRun.class);

  /** How the check's failures are named in the log and in the refusals of {@code WorkerEvents}. */
  private static final String ROLE = "start check";

  private final WorkerContext ctx;
  private final Check check;
  private final Function<StartupCheck.Checked, Run> startRun;
  private final Threads threads;

  /** The run started once the database answered; null before. Guarded by this. */
  private Run started;

  /**
   * {@code startRun}: creates and starts the run the check's answer calls for; {@code onFatal}:
   * fails the worker (and the run started, whose own {@code onFatal} it must be too).
   */
  PendingRun(
      WorkerContext ctx,
      Consumer<Throwable> onFatal,
      Check check,
      Function<StartupCheck.Checked, Run> startRun) {
    super(onFatal);
    this.ctx = ctx;
    this.check = check;
    this.startRun = startRun;
    this.threads = new Threads(ctx.inbox());
  }

  /** {@code unreachable}: why the check at start failed; reported as the first lost connection. */
  void start(SQLException unreachable) {
    threads.start(() -> retry(unreachable), "start");
  }

  private void retry(SQLException unreachable) {
    ReconnectLoop reporter = new ReconnectLoop(ctx.jdbi(), ctx.options(), ctx.events());
    Backoff backoff =
        new Backoff(ctx.options().reconnectInitialDelay(), ctx.options().reconnectMaxDelay());
    SQLException last = unreachable;
    try {
      while (!stopping()) {
        sleep(reporter.failed(last, ROLE, true, backoff));
        if (stopping()) {
          return;
        }
        try {
          StartupCheck.Checked checked = check.run();
          ctx.events().recovered(ROLE);
          ctx.events().connected(true);
          begin(checked);
          return;
        } catch (SQLException e) {
          last = e;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("inbox {}: the worker cannot start: {}", ctx.inbox(), e.getMessage());
      fail(e);
    }
  }

  /** Starts the run unless stop came first (then the check's connection is closed unused). */
  private synchronized void begin(StartupCheck.Checked checked) {
    if (stopRequested()) {
      if (checked.connection() != null) {
        checked.connection().close();
      }
      return;
    }
    started = startRun.apply(checked);
  }

  private synchronized Run started() {
    return started;
  }

  @Override
  public int[] heldPartitions() {
    Run run = started();
    return run != null ? run.heldPartitions() : new int[0];
  }

  /** The check's connection is its own, closed by the check: nothing long-lived to register. */
  @Override
  public void opened(WorkerConnection connection) {}

  @Override
  public void closed(WorkerConnection connection) {}

  /**
   * Ends the retries (a check under way gets the shutdown grace to return; one that returns later
   * starts nothing), then stops the run started, if any.
   */
  @Override
  public void shutdown() {
    wakeSleepers();
    threads.joinAll(System.nanoTime() + ctx.options().shutdownGrace().toNanos());
    Run run = started();
    if (run != null && run.beginStop()) {
      run.shutdown();
    } else {
      LOG.info(
          "inbox {}: worker {} stopped before the database answered",
          ctx.inbox(),
          ctx.config().workerId());
    }
  }
}
