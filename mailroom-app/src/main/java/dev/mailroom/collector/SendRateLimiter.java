package dev.mailroom.collector;

import dev.pginbox.inbox.ClaimPermits;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A token bucket for the send-rate budget (emails per second, e.g. 0.38 for $100/month of SES). The
 * bucket holds at most {@code burst} emails and refills continuously. The collector's worker takes
 * its permits <em>before</em> it claims a batch ({@link ClaimPermits}: no transaction is open while
 * it waits) and claims no more messages than it was granted, and the collector gives back the
 * permits of the tokens it skips ({@link #release}); {@code send} waits for a permit per line and
 * then records what it sent, which may leave the bucket in debt that the next line waits off. Over
 * any window the emails sent stay within {@code burst + rate * seconds}; nothing is dropped, tokens
 * simply wait in the inbox.
 */
public final class SendRateLimiter implements ClaimPermits {

  /** How the limiter waits; tests substitute a fake clock and sleeper. */
  public interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private final double permitsPerNano;
  private final double burst;
  private final int grantAtLeast;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private double available;
  private long updatedAt;

  public SendRateLimiter(
      double emailsPerSecond, int burst, LongSupplier nanoTime, Sleeper sleeper) {
    if (!(emailsPerSecond > 0) || Double.isInfinite(emailsPerSecond)) {
      throw new IllegalArgumentException(
          "the send rate must be a positive number, got " + emailsPerSecond);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1");
    }
    this.permitsPerNano = emailsPerSecond / 1e9;
    this.burst = burst;
    // A claim waits for up to a second's worth of budget (at most a full batch): under load a batch
    // of one email per permit would pay a transaction and a connection per email.
    this.grantAtLeast = (int) Math.max(1, Math.min(burst, Math.ceil(emailsPerSecond)));
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
    this.available = burst;
    this.updatedAt = nanoTime.getAsLong();
  }

  public static SendRateLimiter of(double emailsPerSecond, int burst) {
    return new SendRateLimiter(
        emailsPerSecond,
        burst,
        System::nanoTime,
        nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)));
  }

  /** Blocks until at least one email may be sent; returns how many may be sent now (>= 1). */
  public int awaitPermit() throws InterruptedException {
    while (true) {
      long wait;
      synchronized (this) {
        refill();
        if (available >= 1) {
          return (int) Math.min(Integer.MAX_VALUE, Math.floor(available));
        }
        wait = (long) Math.ceil((1 - available) / permitsPerNano);
      }
      sleeper.sleepNanos(Math.max(wait, 1));
    }
  }

  /**
   * The worker's permit before a claim: waits up to {@code wait} until the budget holds a second's
   * worth of emails (at least one, at most {@code max} and the burst), then takes as many as the
   * claim may use (at most {@code max}); 0 when the wait ran out. The claim never exceeds the
   * budget, so nothing has to be paid back afterwards.
   */
  @Override
  public int acquire(int max, Duration wait) throws InterruptedException {
    long deadline = nanoTime.getAsLong() + wait.toNanos();
    int need = Math.max(1, Math.min(max, grantAtLeast));
    while (true) {
      long sleep;
      synchronized (this) {
        refill();
        if (available >= need) {
          int granted = (int) Math.min(max, Math.floor(available));
          available -= granted;
          return granted;
        }
        long remaining = deadline - nanoTime.getAsLong();
        if (remaining <= 0) {
          return 0;
        }
        sleep = Math.min(remaining, (long) Math.ceil((need - available) / permitsPerNano));
      }
      sleeper.sleepNanos(Math.max(sleep, 1));
    }
  }

  /**
   * What a claim did not use goes back into the bucket (never above the burst), and so do the
   * permits of claimed tokens that sent no email (skipped as ineligible or unprintable): the budget
   * counts emails, not claims.
   */
  @Override
  public synchronized void release(int unused) {
    refill();
    available = Math.min(burst, available + unused);
  }

  /** Records {@code emails} sent; the bucket may go into debt. */
  public synchronized void consume(int emails) {
    refill();
    available -= emails;
  }

  /** Whole emails that may be sent now, possibly negative (debt). */
  public synchronized double available() {
    refill();
    return available;
  }

  private void refill() {
    long now = nanoTime.getAsLong();
    available = Math.min(burst, available + (now - updatedAt) * permitsPerNano);
    updatedAt = now;
  }
}
