package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.postgres.internal.worker.connection.ServerBound;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Claim ahead ({@code WorkerOptions.claimAhead}): a run has one processor more than its
 * concurrency, and as many turns as its concurrency. A processor that claimed a batch waits for a
 * turn before the batch's handler starts and gives it back once the batch's transaction has ended
 * (committed or rolled back), or once whoever took the batch away is done with it. So the server
 * claims the next batch while the JVM handles and commits the current one, no more than {@code
 * concurrency} handlers run at once, and a handler starts only after the batches whose turns came
 * before it have ended: under READ COMMITTED its statements see their writes.
 *
 * <p>The turns are fair (first come, first served): the processor that claimed first, and so holds
 * the earlier messages in the claim order, is usually the first to wait.
 */
public final class HandlerTurns {

  /**
   * How often a wait for a turn looks whether the run is stopping, and whether the batch waiting is
   * in someone's way ({@link StepAside}).
   */
  private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** Asked while a wait for a turn lasts, every {@link #CHECK_NANOS}. */
  @FunctionalInterface
  interface StepAside {
    /** Whether the waiting batch should give its messages back instead of waiting on. */
    boolean now() throws SQLException;
  }

  private final Semaphore turns;
  private final BooleanSupplier stopping;

  /** {@code stopping}: whether the run is stopping (a wait for a turn then ends). */
  public HandlerTurns(int concurrency, BooleanSupplier stopping) {
    this.turns = new Semaphore(concurrency, true);
    this.stopping = stopping;
  }

  /**
   * Waits for a turn; null when none came in time, the run is stopping or {@code stepAside} says so
   * (the caller gives its batch back). Meanwhile the batch only holds its messages' locks, and
   * gives them back when a session waits for one: the batch in hand may be that session (its
   * handler writes a message this batch holds, for one), and would otherwise wait for the batch
   * that waits for it until the processing timeout. An interrupt counts as stopping, and stays set.
   *
   * <p>The longest wait is halfway between the processing timeout (by which the batch holding the
   * turn is taken away; ending it takes a moment more) and the server's bound on an idle
   * transaction ({@link ServerBound}), which would end this one.
   */
  Turn await(Duration processingTimeout, StepAside stepAside) throws SQLException {
    long maxWaitNanos =
        processingTimeout.plus(ServerBound.of(processingTimeout)).dividedBy(2).toNanos();
    long deadline = System.nanoTime() + maxWaitNanos;
    try {
      while (!stopping.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        if (turns.tryAcquire(Math.min(left, CHECK_NANOS), TimeUnit.NANOSECONDS)) {
          return new Turn();
        }
        if (stepAside.now()) {
          return null;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return null;
  }

  /** One turn, given back once however many of its holders end it. */
  final class Turn {
    private final AtomicBoolean ended = new AtomicBoolean();

    private Turn() {}

    void end() {
      if (ended.compareAndSet(false, true)) {
        turns.release();
      }
    }
  }
}
