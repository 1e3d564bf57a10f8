package dev.pginbox.inbox.postgres.internal.worker.batch;

/**
 * How one batch ended, as a value the processor acts on: what it tells the coordinator, whether it
 * backs off, and whether its thread goes on.
 *
 * @param claimed the messages the claim took (0 when it took none or gave them back)
 * @param cause the error behind a connection loss, a rollback or an abort; null otherwise
 */
public record BatchOutcome(Kind kind, int claimed, Throwable cause) {

  public enum Kind {
    /** Nothing to claim, or fewer than the order's minimum (given back for a count to decide). */
    EMPTY,
    /**
     * Nothing claimed, but an aggregate head another transaction held was released meanwhile: claim
     * again at once.
     */
    HEAD_RELEASED,
    /** Committed: messages processed, failed attempts recorded, in one transaction. */
    COMMITTED,
    /** The commit of one message failed; its failed attempt was recorded after the rollback. */
    ROLLED_BACK,
    /**
     * The commit of several messages failed: rolled back, nobody charged yet. Never leaves {@link
     * BatchRunner#run}, which tries smaller claims until one commits or a single message fails.
     */
    COMMIT_FAILED,
    /** The connection failed: the server gave the messages back untouched, nobody is charged. */
    CONNECTION_LOST,
    /**
     * The processing timeout took the batch away; a replacement processor records its outcome on
     * the batch's connection and takes this thread's place.
     */
    TIMED_OUT,
    /** Stop took the batch away after the shutdown grace (rolled back, nobody charged). */
    STOPPED,
    /** The handler threw HandlerAbortException: rolled back, the worker stops. */
    HANDLER_ABORTED,
    /**
     * The database refused the work for an environmental reason (a revoked privilege, a missing
     * table): rolled back, nobody is charged, the processor backs off.
     */
    REFUSED,
    /**
     * The JVM ran out of memory while the batch was read: rolled back, nobody is charged, the
     * processor claims smaller batches for a while.
     */
    OUT_OF_MEMORY
  }

  static BatchOutcome empty() {
    return new BatchOutcome(Kind.EMPTY, 0, null);
  }

  static BatchOutcome headReleased() {
    return new BatchOutcome(Kind.HEAD_RELEASED, 0, null);
  }

  static BatchOutcome committed(int claimed) {
    return new BatchOutcome(Kind.COMMITTED, claimed, null);
  }

  static BatchOutcome rolledBack(int claimed, Throwable reason) {
    return new BatchOutcome(Kind.ROLLED_BACK, claimed, reason);
  }

  static BatchOutcome commitFailed(int claimed, Throwable reason) {
    return new BatchOutcome(Kind.COMMIT_FAILED, claimed, reason);
  }

  static BatchOutcome connectionLost(int claimed, Throwable cause) {
    return new BatchOutcome(Kind.CONNECTION_LOST, claimed, cause);
  }

  static BatchOutcome takenAway(InFlightBatch batch) {
    return new BatchOutcome(
        batch.timedOut() ? Kind.TIMED_OUT : Kind.STOPPED, batch.eventIds().size(), null);
  }

  static BatchOutcome refused(int claimed, Throwable cause) {
    return new BatchOutcome(Kind.REFUSED, claimed, cause);
  }

  static BatchOutcome outOfMemory(int claimed, Throwable cause) {
    return new BatchOutcome(Kind.OUT_OF_MEMORY, claimed, cause);
  }

  static BatchOutcome handlerAborted(int claimed, Throwable cause) {
    return new BatchOutcome(Kind.HANDLER_ABORTED, claimed, cause);
  }
}
