package dev.pginbox.inbox.postgres.internal.worker.connection;

import java.time.Duration;

/** Capped exponential backoff for reconnects: initial, 2x, 4x, ... up to max. Not thread-safe. */
public final class Backoff {

  private final Duration initial;
  private final Duration max;
  private Duration next;

  public Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max.compareTo(initial) < 0 ? initial : max;
    this.next = initial;
  }

  /** The delay to wait now; the following call returns twice as much, up to the cap. */
  public Duration next() {
    Duration current = next;
    Duration doubled = current.multipliedBy(2);
    next = doubled.compareTo(max) > 0 ? max : doubled;
    return current;
  }

  public void reset() {
    next = initial;
  }
}
