package dev.mailroom.collector;

import dev.pginbox.inbox.WorkerListener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns worker events into the original collector's log lines ({@code connected}, {@code NOTIFY
 * called; waking up}, {@code processing N rows... (max reached)} / {@code (timeout)}), and tells
 * {@code connection} (the readiness of {@code /health/ready}) when the worker connects and loses
 * its connection.
 */
final class CollectorListener implements WorkerListener {

  private final CollectorLog log;
  private final String connectingLine;
  private final WorkerListener connection;
  private final AtomicBoolean awake = new AtomicBoolean();
  private final AtomicBoolean connected = new AtomicBoolean();

  CollectorListener(CollectorLog log, String connectingLine, WorkerListener connection) {
    this.log = log;
    this.connectingLine = connectingLine;
    this.connection = connection;
  }

  boolean isConnected() {
    return connected.get();
  }

  @Override
  public void onWakeUp(WakeUpCause cause) {
    // Logged once per batch cycle, as the original did for the first notification it counted.
    if (cause == WakeUpCause.NOTIFY && awake.compareAndSet(false, true)) {
      log.info("NOTIFY called; waking up");
    }
  }

  @Override
  public void onDispatch(int count, DispatchReason reason) {
    awake.set(false);
    log.info(
        "processing "
            + count
            + " rows... ("
            + (reason == DispatchReason.MAX_REACHED ? "max reached" : "timeout")
            + ")");
  }

  @Override
  public void onConnected() {
    connected.set(true);
    connection.onConnected();
    log.info("connected");
  }

  @Override
  public void onConnectionLost(Throwable error, Duration retryIn) {
    connected.set(false);
    connection.onConnectionLost(error, retryIn);
    log.warn(
        "connection lost: " + firstLine(error) + "; reconnecting in " + retryIn.toMillis() + "ms");
    log.info("connecting to " + connectingLine);
  }

  /** A processing connection, found dead by the healthcheck or by a batch. */
  @Override
  public void onProcessorConnectionLost(Throwable error, Duration retryIn) {
    log.warn(
        "processor connection lost: "
            + firstLine(error)
            + "; reconnecting in "
            + retryIn.toMillis()
            + "ms");
  }

  /**
   * Not the tokens' fault (a revoked privilege, a missing table, a read-only database): nothing is
   * charged, the tokens stay pending, and the line names the SQLSTATE so an operator can fix it.
   */
  @Override
  public void onDatabaseRefused(String sqlState, Throwable error, Duration retryIn) {
    log.warn(
        "the database refused the work (SQLSTATE "
            + sqlState
            + "): "
            + firstLine(error)
            + "; no token is charged, retrying in "
            + retryIn.toMillis()
            + "ms");
  }

  @Override
  public void onDatabaseRecovered() {
    log.info("the database accepts the work again");
  }

  private static String firstLine(Throwable error) {
    String message = error == null ? "unknown error" : String.valueOf(error.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
