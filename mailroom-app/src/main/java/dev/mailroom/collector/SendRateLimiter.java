package dev.mailroom.collector;

import java.util.function.LongSupplier;

/**
 * A token bucket for the send-rate budget (emails per second, e.g. 0.38 for $100/month of SES). The
 * bucket holds at most {@code burst} emails and refills continuously. The collector waits for one
 * permit <em>before</em> it claims a batch (no transaction is open while it waits) and then takes
 * what it sent, which may leave the bucket in debt: the next claim waits the debt off. Over any
 * window the emails sent stay within {@code burst + rate * seconds}; nothing is dropped, tokens
 * simply wait in the inbox.
 */
public final class SendRateLimiter {

  /** How the limiter waits; tests substitute a fake clock and sleeper. */
  public interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private final double permitsPerNano;
  private final double burst;
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

  /** Records {@code emails} sent; the bucket may go into debt. */
  public synchronized void consume(int emails) {
    refill();
    available -= emails;
  }

  public double ratePerSecond() {
    return permitsPerNano * 1e9;
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
