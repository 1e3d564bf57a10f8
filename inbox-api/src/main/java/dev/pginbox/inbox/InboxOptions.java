package dev.pginbox.inbox;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of {@code inbox.create_inbox}. Build with {@link #builder()}; every option has the
 * default of the SQL function.
 *
 * @param dedupRetention how long a processed message's event id keeps deduplicating redeliveries;
 *     null means as long as {@code processedRetention}
 * @param channel the LISTEN/NOTIFY channel; null means {@code inbox_<name>}
 */
public record InboxOptions(
    int maxRetries,
    Duration processedRetention,
    Duration dlqRetention,
    Duration dedupRetention,
    String channel,
    Duration backoffBase,
    Duration backoffMax,
    int degradedAgeSeconds,
    int criticalAgeSeconds,
    long degradedPending,
    long criticalPending) {

  public static final int DEFAULT_MAX_RETRIES = 3;
  public static final Duration DEFAULT_PROCESSED_RETENTION = Duration.ofHours(72);
  public static final Duration DEFAULT_DLQ_RETENTION = Duration.ofHours(168);
  public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofSeconds(1);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMinutes(5);

  public InboxOptions {
    if (maxRetries < 1) {
      throw new InvalidInboxArgumentException(
          "maxRetries must be at least 1, got " + maxRetries, null);
    }
    requireWholeHours(processedRetention, "processedRetention");
    requireWholeHours(dlqRetention, "dlqRetention");
    if (dedupRetention != null) {
      requireWholeHours(dedupRetention, "dedupRetention");
    }
    Objects.requireNonNull(backoffBase, "backoffBase");
    Objects.requireNonNull(backoffMax, "backoffMax");
    if (backoffBase.isNegative() || backoffMax.compareTo(backoffBase) < 0) {
      throw new InvalidInboxArgumentException("backoff must satisfy 0 <= base <= max", null);
    }
    if (degradedAgeSeconds < 0
        || criticalAgeSeconds < degradedAgeSeconds
        || degradedPending < 0
        || criticalPending < degradedPending) {
      throw new InvalidInboxArgumentException(
          "health thresholds must satisfy 0 <= degraded <= critical", null);
    }
  }

  private static void requireWholeHours(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.toSeconds() % 3600 != 0) {
      throw new InvalidInboxArgumentException(
          name + " must be a non-negative whole number of hours", null);
    }
  }

  public static InboxOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builder with the defaults of {@code inbox.create_inbox}. */
  public static final class Builder {
    private int maxRetries = DEFAULT_MAX_RETRIES;
    private Duration processedRetention = DEFAULT_PROCESSED_RETENTION;
    private Duration dlqRetention = DEFAULT_DLQ_RETENTION;
    private Duration dedupRetention;
    private String channel;
    private Duration backoffBase = DEFAULT_BACKOFF_BASE;
    private Duration backoffMax = DEFAULT_BACKOFF_MAX;
    private int degradedAgeSeconds = 30;
    private int criticalAgeSeconds = 120;
    private long degradedPending = 10_000;
    private long criticalPending = 100_000;

    public Builder maxRetries(int v) {
      maxRetries = v;
      return this;
    }

    public Builder processedRetention(Duration v) {
      processedRetention = v;
      return this;
    }

    public Builder dlqRetention(Duration v) {
      dlqRetention = v;
      return this;
    }

    public Builder dedupRetention(Duration v) {
      dedupRetention = v;
      return this;
    }

    public Builder channel(String v) {
      channel = v;
      return this;
    }

    public Builder backoff(Duration base, Duration max) {
      backoffBase = base;
      backoffMax = max;
      return this;
    }

    public Builder degradedAt(int ageSeconds, long pending) {
      degradedAgeSeconds = ageSeconds;
      degradedPending = pending;
      return this;
    }

    public Builder criticalAt(int ageSeconds, long pending) {
      criticalAgeSeconds = ageSeconds;
      criticalPending = pending;
      return this;
    }

    public InboxOptions build() {
      return new InboxOptions(
          maxRetries,
          processedRetention,
          dlqRetention,
          dedupRetention,
          channel,
          backoffBase,
          backoffMax,
          degradedAgeSeconds,
          criticalAgeSeconds,
          degradedPending,
          criticalPending);
    }
  }
}
