package dev.pginbox.inbox.postgres.internal.worker.connection;

import java.time.Duration;

/**
 * What the threads of one run need from it: whether to go on, a sleep that stop cuts short, a way
 * to fail the worker, and the registration of long-lived connections that stop must close.
 */
public interface RunControl {

  /** True once stop began, or the worker failed (a failed worker claims nothing more). */
  boolean stopping();

  /** Sleeps, but returns early when the run stops. */
  void sleep(Duration delay) throws InterruptedException;

  /** A fatal error (the handler aborted): the run stops claiming, the worker stops. */
  void fail(Throwable error);

  /** A long-lived connection to close at stop (a LISTEN connection blocks in a read). */
  void opened(WorkerConnection connection);

  void closed(WorkerConnection connection);
}
