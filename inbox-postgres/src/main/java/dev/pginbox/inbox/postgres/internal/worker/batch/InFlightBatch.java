package dev.pginbox.inbox.postgres.internal.worker.batch;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxTransaction;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A claimed batch while its handler runs, and the progress a timeout needs to end it fairly.
 *
 * <p>The handler works through the batch in parts (a message for a message handler, the batch or a
 * piece of it for a batch handler), each in a savepoint of its own (see {@link
 * BatchStore#setSavepoint}). Who ends the batch is decided once, by compare-and-set: the processor
 * (about to commit), the watchdog (processing timeout) or stop (grace period over). Every step of
 * the processor on the batch's connection happens under this object's lock and only while the batch
 * is still its own, so the replacement that ends a timed-out batch sees a consistent picture and
 * has the connection to itself (except for what the stuck handler does, which the savepoint
 * undoes). It is also the transaction the handler gets for each part ({@link #unwrap}).
 */
public final class InFlightBatch implements InboxTransaction {

  /** Where the part savepoint stands. */
  private enum Savepoint {
    /** Not set yet. */
    NONE,
    /** At the start of the running part: rolling back to it undoes that part's writes only. */
    AT_PART_START,
    /** Before writes that were kept: never rolled back to; released with the next one. */
    BEFORE_KEPT_WORK,
    /** A statement setting or rolling back to it failed (the transaction is aborted). */
    UNKNOWN
  }

  private enum State {
    HANDLING,
    FINISHING,
    TIMED_OUT,
    STOPPED
  }

  /** What a timed-out batch's replacement needs: see {@link TimeoutRecovery}. */
  record Progress(
      List<Failure> failures, List<String> part, boolean partSavepoint, List<String> untouched) {}

  private final List<String> eventIds;
  private final BatchStore store;
  private final Thread thread;
  private final AtomicReference<State> state = new AtomicReference<>(State.HANDLING);
  private final CountDownLatch released = new CountDownLatch(1);

  // Guarded by this.
  private final List<Failure> failures = new ArrayList<>();
  private final Set<String> finished = new HashSet<>();
  private List<String> part = List.of();
  private Savepoint savepoint;
  private boolean partWrites;
  private boolean touched;
  private volatile long partStartNanos = System.nanoTime();

  /** With claim ahead, the handler turn this batch holds (null: none); ended by released. */
  private final HandlerTurns.Turn turn;

  /**
   * {@code savepointSet}: the claim's round trip set the savepoint of the first part; {@code turn}:
   * the handler turn the batch holds (null: none).
   */
  InFlightBatch(
      List<String> eventIds,
      BatchStore store,
      Thread thread,
      boolean savepointSet,
      HandlerTurns.Turn turn) {
    this.savepoint = savepointSet ? Savepoint.AT_PART_START : Savepoint.NONE;
    this.eventIds = List.copyOf(eventIds);
    this.store = store;
    this.thread = thread;
    this.turn = turn;
  }

  /** Starts a part; false when the batch was taken away. {@code eager}: set the savepoint now. */
  synchronized boolean beginPart(List<String> ids, boolean eager) throws SQLException {
    if (takenAway()) {
      return false;
    }
    part = List.copyOf(ids);
    partWrites = false;
    partStartNanos = System.nanoTime();
    if (eager) {
      ensureSavepoint();
    }
    return true;
  }

  /**
   * The running part's transaction, its savepoint made sure of at the first unwrap: with the
   * worker's own connections every write goes through here, so a part that never touches the
   * database needs no savepoint (with a boundary it is set before the part begins instead).
   */
  @Override
  public <T> T unwrap(Class<T> type) {
    T target = store.unwrap(type);
    try {
      ensureSavepoint();
    } catch (SQLException e) {
      throw new InboxException("cannot set the savepoint of the handler's work", null, e);
    }
    return target;
  }

  /**
   * Before the handler's first write in a part (see {@link #unwrap}): makes sure the savepoint
   * marks the start of the part. After a claim that set it, after a part that was rolled back and
   * after parts that wrote nothing, it does already: no round trip. After a part whose writes were
   * kept, the old savepoint is released and a new one set in one round trip.
   */
  synchronized void ensureSavepoint() throws SQLException {
    if (takenAway()) {
      throw new InboxException(
          "the batch passed its processing timeout or the worker stopped", null);
    }
    partWrites = true;
    touched = true;
    if (savepoint != Savepoint.AT_PART_START) {
      boolean release = savepoint == Savepoint.BEFORE_KEPT_WORK;
      savepoint = Savepoint.UNKNOWN;
      store.setSavepoint(release);
      savepoint = Savepoint.AT_PART_START;
    }
  }

  /**
   * Ends the current part: keeps its writes or rolls them back, adds its failures and marks {@code
   * done} finished (a part given back for a retry in pieces finishes nothing). False when the batch
   * was taken away meanwhile. Keeping costs no round trip: the savepoint is released when the next
   * part needs one (in the same round trip as the new one) or by the batch's commit. A rolled-back
   * part's savepoint marks the start of the next part as well.
   */
  synchronized boolean endPart(boolean keep, List<Failure> partFailures, List<String> done)
      throws SQLException {
    if (takenAway()) {
      return false;
    }
    if (partWrites && savepoint == Savepoint.AT_PART_START) {
      if (keep) {
        savepoint = Savepoint.BEFORE_KEPT_WORK;
      } else {
        savepoint = Savepoint.UNKNOWN;
        store.rollbackToSavepoint();
        savepoint = Savepoint.AT_PART_START;
      }
    }
    failures.addAll(partFailures);
    finished.addAll(done);
    part = List.of();
    return true;
  }

  /**
   * Whether the handler asked for the transaction in any part (and so may have written): the next
   * claim then sets the first part's savepoint in its round trip.
   */
  synchronized boolean touched() {
    return touched;
  }

  /** The ids of the batch's messages, in claim order. */
  public List<String> eventIds() {
    return eventIds;
  }

  /** The store of the batch's transaction: for whoever ends the batch (see {@link #timeOut}). */
  BatchStore store() {
    return store;
  }

  /** Closes the batch's connection at once (a taker that did not end it in time). */
  public void abort() {
    store.abort();
  }

  /** The failures of the parts so far (the processor records them when it finishes). */
  synchronized List<Failure> failures() {
    return List.copyOf(failures);
  }

  synchronized Progress progress() {
    List<String> untouched = new ArrayList<>();
    for (String id : eventIds) {
      if (!finished.contains(id) && !part.contains(id)) {
        untouched.add(id);
      }
    }
    return new Progress(
        List.copyOf(failures), part, savepoint == Savepoint.AT_PART_START, untouched);
  }

  /** When the running part started (System.nanoTime): the timeout counts from there. */
  public long partStartNanos() {
    return partStartNanos;
  }

  /** The processor's claim to finish the batch itself; false when it was taken away. */
  boolean finish() {
    return state.compareAndSet(State.HANDLING, State.FINISHING);
  }

  /**
   * The watchdog takes the batch: cancels the handler's statement and interrupts it; the connection
   * stays open for the replacement to end the batch on, which then calls {@link #released()}.
   */
  public boolean timeOut() {
    if (!state.compareAndSet(State.HANDLING, State.TIMED_OUT)) {
      return false;
    }
    store.cancel();
    thread.interrupt();
    return true;
  }

  /**
   * Stop takes the batch: cancels the handler's statement and interrupts it, and nobody is charged.
   * A handler that returns leaves the processor to roll the transaction back on an intact
   * connection, which goes back to the application's pool as it came; for one that does not, see
   * {@link #abortIfStuck()}.
   */
  public boolean stop() {
    if (!state.compareAndSet(State.HANDLING, State.STOPPED)) {
      return false;
    }
    store.cancel();
    thread.interrupt();
    released();
    return true;
  }

  /**
   * After a stop, closes the batch's connection if its processor has still not come back (a handler
   * that ignores cancel and interruption): the server then rolls the transaction back.
   */
  public void abortIfStuck() {
    if (thread.isAlive()) {
      store.abort();
    }
  }

  boolean takenAway() {
    State s = state.get();
    return s == State.TIMED_OUT || s == State.STOPPED;
  }

  boolean timedOut() {
    return state.get() == State.TIMED_OUT;
  }

  /**
   * Whoever took the batch is done with its connection: the batch's transaction is over, and its
   * handler turn goes to the next batch (the stuck handler's thread may never come back to end it).
   */
  void released() {
    released.countDown();
    if (turn != null) {
      turn.end();
    }
  }

  /**
   * The processor whose batch was taken waits (bounded) until the taker is done with the
   * connection, so that ending its own transaction cannot cut into the taker's statements.
   */
  void awaitReleased(long timeoutNanos) {
    boolean interrupted = Thread.interrupted();
    long deadline = System.nanoTime() + timeoutNanos;
    try {
      while (true) {
        try {
          released.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
