package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import org.springframework.context.SmartLifecycle;

/**
 * The worker of one inbox as a bean (named {@code inboxWorker.NAME}): it starts when the
 * application context has started and stops, draining its in-flight batches within the worker's
 * shutdown grace, when the context closes. Workers of all inboxes stop in parallel in the same
 * lifecycle phase, so the shutdown takes one grace period, not one per inbox; keep {@code
 * spring.lifecycle.timeout-per-shutdown-phase} (30 s by default) above the grace.
 *
 * <p>The worker's own threads are daemon threads, so that a plain Java program that forgets to stop
 * a worker can still exit. A Spring application whose only work is a listener (no web server) would
 * then exit as soon as its {@code main} method returns; so while the worker runs, this bean also
 * runs one non-daemon thread, {@code inbox-NAME-keep-alive}, that does nothing but keep the JVM
 * alive until the context closes (as {@code spring.main.keep-alive} does).
 */
public final class InboxWorkerLifecycle implements SmartLifecycle {

  /** The lifecycle phase: workers start last and stop first. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

  private final WorkerOptions options;
  private final String handler;
  private final InboxWorker worker;
  private final ConnectionState connection;
  private final boolean autoStartup;
  private CountDownLatch keepAlive;

  InboxWorkerLifecycle(
      WorkerOptions options,
      String handler,
      InboxWorker worker,
      ConnectionState connection,
      boolean autoStartup) {
    this.options = Objects.requireNonNull(options, "options");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.worker = Objects.requireNonNull(worker, "worker");
    this.connection = Objects.requireNonNull(connection, "connection");
    this.autoStartup = autoStartup;
  }

  /** False with {@code inbox.start-workers=false}: the worker is built, never started. */
  @Override
  public boolean isAutoStartup() {
    return autoStartup;
  }

  public String inbox() {
    return options.inbox();
  }

  public WorkerOptions options() {
    return options;
  }

  /** The listener method or handler bean this worker calls. */
  public String handler() {
    return handler;
  }

  /** The worker itself ({@link InboxWorker#runOnce()} for tests). */
  public InboxWorker worker() {
    return worker;
  }

  /** False from a lost connection until the worker has reconnected. */
  public boolean connected() {
    return connection.connected;
  }

  @Override
  public synchronized void start() {
    worker.start();
    if (keepAlive == null) {
      CountDownLatch latch = new CountDownLatch(1);
      Thread t =
          new Thread(
              () -> {
                try {
                  latch.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "inbox-" + options.inbox() + "-keep-alive");
      t.setDaemon(false);
      t.start();
      keepAlive = latch;
    }
  }

  @Override
  public void stop() {
    try {
      worker.stop();
    } finally {
      releaseKeepAlive();
    }
  }

  private synchronized void releaseKeepAlive() {
    if (keepAlive != null) {
      keepAlive.countDown();
      keepAlive = null;
    }
  }

  @Override
  public void stop(Runnable callback) {
    Thread stopper =
        new Thread(
            () -> {
              try {
                stop();
              } finally {
                callback.run();
              }
            },
            "inbox-" + options.inbox() + "-stop");
    stopper.start();
  }

  @Override
  public boolean isRunning() {
    return worker.isRunning();
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  @Override
  public String toString() {
    return "InboxWorkerLifecycle[" + options.inbox() + " -> " + handler + "]";
  }

  /** Follows the worker's connection through its listener. */
  static final class ConnectionState implements WorkerListener {
    private volatile boolean connected = true;
    private volatile Throwable lastError;

    @Override
    public void onConnected() {
      connected = true;
    }

    @Override
    public void onConnectionLost(Throwable error, Duration retryIn) {
      lastError = error;
      connected = false;
    }

    Throwable lastError() {
      return lastError;
    }
  }
}
