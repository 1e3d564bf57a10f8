package dev.pginbox.inbox.http.server;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Failed attempts per key (a client address, a user name) in a fixed window: after {@code max}
 * failures a key is refused until its window ends, so nobody can guess passwords, codes or tokens
 * at speed. Memory is bounded: at most {@code maxKeys} are tracked; when full, expired windows go
 * first and then the oldest. Thread-safe.
 */
public final class FailedAttempts {

  private record Window(long startedAt, int failures) {}

  private final int max;
  private final long windowNanos;
  private final int maxKeys;
  private final LongSupplier nanoTime;
  private final LinkedHashMap<String, Window> windows = new LinkedHashMap<>();

  /**
   * @param nanoTime the clock ({@code System::nanoTime}; tests pass their own)
   */
  public FailedAttempts(int max, Duration window, int maxKeys, LongSupplier nanoTime) {
    this.max = max;
    this.windowNanos = window.toNanos();
    this.maxKeys = maxKeys;
    this.nanoTime = nanoTime;
  }

  public synchronized boolean blocked(String key) {
    Window w = windows.get(key);
    return w != null && !expired(w, nanoTime.getAsLong()) && w.failures() >= max;
  }

  public synchronized void failed(String key) {
    long now = nanoTime.getAsLong();
    Window w = windows.get(key);
    if (w == null || expired(w, now)) {
      windows.remove(key);
      makeRoom(now);
      windows.put(key, new Window(now, 1));
    } else {
      windows.put(key, new Window(w.startedAt(), w.failures() + 1));
    }
  }

  public synchronized int tracked() {
    return windows.size();
  }

  private void makeRoom(long now) {
    if (windows.size() < maxKeys) {
      return;
    }
    windows.values().removeIf(w -> expired(w, now));
    Iterator<Map.Entry<String, Window>> oldest = windows.entrySet().iterator();
    while (windows.size() >= maxKeys && oldest.hasNext()) {
      oldest.next();
      oldest.remove();
    }
  }

  private boolean expired(Window w, long now) {
    return now - w.startedAt() >= windowNanos;
  }
}
