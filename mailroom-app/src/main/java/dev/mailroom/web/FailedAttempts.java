package dev.mailroom.web;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Failed verification attempts per client address in a fixed window: after {@code max} failures an
 * address is refused until its window ends, so nobody can try codes or tokens at speed. Memory is
 * bounded: at most {@code maxAddresses} are tracked; when full, expired windows go first and then
 * the oldest.
 */
final class FailedAttempts {

  private record Window(long startedAt, int failures) {}

  private final int max;
  private final long windowNanos;
  private final int maxAddresses;
  private final LongSupplier nanoTime;
  private final LinkedHashMap<String, Window> windows = new LinkedHashMap<>();

  FailedAttempts(int max, long windowNanos, int maxAddresses, LongSupplier nanoTime) {
    this.max = max;
    this.windowNanos = windowNanos;
    this.maxAddresses = maxAddresses;
    this.nanoTime = nanoTime;
  }

  synchronized boolean blocked(String address) {
    Window w = windows.get(address);
    return w != null && !expired(w, nanoTime.getAsLong()) && w.failures() >= max;
  }

  synchronized void failed(String address) {
    long now = nanoTime.getAsLong();
    Window w = windows.get(address);
    if (w == null || expired(w, now)) {
      windows.remove(address);
      makeRoom(now);
      windows.put(address, new Window(now, 1));
    } else {
      windows.put(address, new Window(w.startedAt(), w.failures() + 1));
    }
  }

  synchronized int tracked() {
    return windows.size();
  }

  private void makeRoom(long now) {
    if (windows.size() < maxAddresses) {
      return;
    }
    windows.values().removeIf(w -> expired(w, now));
    Iterator<Map.Entry<String, Window>> oldest = windows.entrySet().iterator();
    while (windows.size() >= maxAddresses && oldest.hasNext()) {
      oldest.next();
      oldest.remove();
    }
  }

  private boolean expired(Window w, long now) {
    return now - w.startedAt() >= windowNanos;
  }
}
