package dev.pginbox.inbox.http;

import dev.pginbox.inbox.Inbox;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.PartitionLag;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of every inbox from the SQL API, refreshed when scraped and at most once per max age:
 * {@code inbox.waiting}, {@code inbox.dead}, {@code inbox.blocked.aggregates}, {@code
 * inbox.xmin.horizon.held} (seconds the database's xmin horizon has been held back; tag inbox) and
 * {@code inbox.partition.lag} / {@code inbox.partition.waiting} (tags inbox, partition; partition
 * "all" when not partitioned). A value that could not be read is NaN.
 */
final class InboxGauges {

  private static final Logger LOG = LoggerFactory.getLogger(InboxGauges.class);

  private final InboxManager manager;
  private final MeterRegistry registry;
  private final long maxAgeNanos;
  private final Map<String, double[]> values = new ConcurrentHashMap<>();
  private long refreshedAt;
  private boolean refreshed;

  InboxGauges(InboxManager manager, MeterRegistry registry, Duration maxAge) {
    this.manager = manager;
    this.registry = registry;
    this.maxAgeNanos = maxAge.toNanos();
  }

  synchronized void refreshIfOlderThanMaxAge() {
    long now = System.nanoTime();
    if (refreshed && now - refreshedAt < maxAgeNanos) {
      return;
    }
    refreshed = true;
    refreshedAt = now;
    values.values().forEach(v -> v[0] = Double.NaN);
    try {
      for (String name : manager.names()) {
        Inbox inbox = manager.inbox(name);
        InboxHealth health = inbox.health();
        set("inbox.waiting", name, null, health.pendingCount());
        set("inbox.dead", name, null, health.dlqCount());
        set("inbox.blocked.aggregates", name, null, health.blockedAggregates());
        set("inbox.blocked", name, null, health.blockedCount());
        set("inbox.xmin.horizon.held", name, null, health.horizonHeldSeconds());
        for (PartitionLag lag : inbox.operations().partitionLag()) {
          String partition = lag.partition() == null ? "all" : lag.partition().toString();
          set("inbox.partition.lag", name, partition, lag.oldestEligibleAgeSeconds());
          set("inbox.partition.waiting", name, partition, lag.waiting());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("refreshing the inbox gauges failed: {}", e.getMessage());
    }
  }

  private void set(String metric, String inbox, String partition, double value) {
    String key = metric + "|" + inbox + "|" + partition;
    double[] holder =
        values.computeIfAbsent(
            key,
            k -> {
              double[] h = {Double.NaN};
              Gauge.Builder<double[]> gauge =
                  Gauge.builder(metric, h, a -> a[0]).tag("inbox", inbox);
              if (partition != null) {
                gauge.tag("partition", partition);
              }
              gauge.register(registry);
              return h;
            });
    holder[0] = value;
  }
}
