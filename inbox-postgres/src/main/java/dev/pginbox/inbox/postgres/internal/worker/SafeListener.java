package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerListener;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the application's listener; its exceptions are logged, never allowed to break a worker
 * thread.
 */
final class SafeListener {

  private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);

  private final WorkerListener delegate;

  SafeListener(WorkerListener delegate) {
    this.delegate = delegate == null ? WorkerListener.NONE : delegate;
  }

  void wakeUp(WorkerListener.WakeUpCause cause) {
    run(() -> delegate.onWakeUp(cause));
  }

  void dispatch(int count, WorkerListener.DispatchReason reason) {
    run(() -> delegate.onDispatch(count, reason));
  }

  void committed(int count) {
    run(() -> delegate.onBatchCommitted(count));
  }

  void connected() {
    run(delegate::onConnected);
  }

  void connectionLost(Throwable error, Duration retryIn) {
    run(() -> delegate.onConnectionLost(error, retryIn));
  }

  private static void run(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.warn("worker listener threw; ignored", e);
    }
  }
}
