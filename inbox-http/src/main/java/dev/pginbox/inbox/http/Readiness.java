package dev.pginbox.inbox.http;

import dev.pginbox.inbox.WorkerListener;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which workers are connected: give each worker {@code .listener(readiness.track(name))}. A worker
 * that lost its connection and backs off before reconnecting makes {@code /health/ready} answer 503
 * until it is connected again.
 */
public final class Readiness {

  private final Map<String, Boolean> connected = new ConcurrentHashMap<>();

  /** A listener for the worker called {@code name} (unique per worker). */
  public WorkerListener track(String name) {
    connected.put(name, false);
    return new WorkerListener() {
      @Override
      public void onConnected() {
        connected.put(name, true);
      }

      @Override
      public void onConnectionLost(Throwable error, Duration retryIn) {
        connected.put(name, false);
      }
    };
  }

  /** Workers tracked but not connected now. */
  public java.util.List<String> disconnected() {
    return connected.entrySet().stream()
        .filter(e -> !e.getValue())
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }
}
