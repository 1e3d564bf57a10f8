package dev.pginbox.inbox.http.server;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.LongSupplier;

/**
 * Failed attempts per key (a client address, a user name, a token) in a fixed window: after {@code
 * max} failures a key is refused until its window ends, so nobody can guess passwords, codes or
 * tokens at speed. Thread-safe.
 *
 * <p>Memory is bounded, and the keys are chosen by whoever sends the requests, so a flood of new
 * keys must not buy a blocked key its freedom. At most {@code maxKeys} keys are tracked; to make
 * room, windows that ended go first, then the oldest key that is not blocked. A blocked key is
 * never evicted: when every tracked key is blocked, a key that is not tracked is refused as well
 * (fail closed) until the first window ends, at most one window later.
 */
public final class FailedAttempts {

  private record Window(long startedAt, int failures) {}

  private final int max;
  private final long windowNanos;
  private final int maxKeys;
  private final LongSupplier nanoTime;

  /** In the order the windows started: the oldest first. */
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
    long now = nanoTime.getAsLong();
    Window w = windows.get(key);
    if (w != null && !expired(w, now)) {
      return w.failures() >= max;
    }
    return !hasRoom(now);
  }

  public synchronized void failed(String key) {
    long now = nanoTime.getAsLong();
    Window w = windows.get(key);
    if (w != null && !expired(w, now)) {
      windows.put(key, new Window(w.startedAt(), w.failures() + 1));
      return;
    }
    windows.remove(key);
    if (makeRoom(now)) {
      windows.put(key, new Window(now, 1));
    }
  }

  public synchronized int tracked() {
    return windows.size();
  }

  /** Whether a new key could be tracked now (dropping ended windows to see). */
  private boolean hasRoom(long now) {
    if (windows.size() < maxKeys) {
      return true;
    }
    windows.values().removeIf(w -> expired(w, now));
    return windows.size() < maxKeys || windows.values().stream().anyMatch(w -> w.failures() < max);
  }

  /** Room for one more key: ended windows go, then the oldest key not blocked; false if none. */
  private boolean makeRoom(long now) {
    if (!hasRoom(now)) {
      return false;
    }
    Iterator<Window> oldest = windows.values().iterator();
    while (windows.size() >= maxKeys && oldest.hasNext()) {
      if (oldest.next().failures() < max) {
        oldest.remove();
      }
    }
    return true;
  }

  private boolean expired(Window w, long now) {
    return now - w.startedAt() >= windowNanos;
  }
}
