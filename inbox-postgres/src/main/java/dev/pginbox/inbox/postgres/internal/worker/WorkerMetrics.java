package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker's meters, all tagged {@code inbox}. Counters are registered once per registry and
 * shared by workers of the same inbox (Micrometer returns the existing meter); the two gauges are
 * removed on {@link #close()} so a restarted worker registers fresh ones.
 */
final class WorkerMetrics implements AutoCloseable {

  private final MeterRegistry registry;
  final Counter claimed;
  final Counter processed;
  final Counter failed;
  final Counter deadLettered;
  final Counter skipped;
  final Counter reconnects;
  final DistributionSummary batchSize;
  final Timer handlerDuration;
  private final Map<WakeUpCause, Counter> wakeups = new EnumMap<>(WakeUpCause.class);
  private final AtomicLong pendingDepth = new AtomicLong();
  private final AtomicLong oldestAgeMillis = new AtomicLong();
  private final String inbox;
  private Gauge depthGauge;
  private Gauge ageGauge;

  WorkerMetrics(MeterRegistry registry, String inbox) {
    this.registry = registry;
    this.inbox = inbox;
    claimed = counter("inbox.messages.claimed", inbox, "messages claimed by a worker");
    processed =
        counter(
            "inbox.messages.processed", inbox, "messages marked processed by a committed batch");
    failed = counter("inbox.messages.failed", inbox, "failed attempts recorded (retry or dead)");
    deadLettered =
        counter("inbox.messages.dead_lettered", inbox, "messages that became dead letters");
    skipped =
        counter("inbox.messages.skipped", inbox, "messages the handler skipped (marked processed)");
    reconnects = counter("inbox.reconnects", inbox, "connection attempts after a failure");
    batchSize =
        DistributionSummary.builder("inbox.batch.size")
            .tag("inbox", inbox)
            .description("messages per claimed batch")
            .register(registry);
    handlerDuration =
        Timer.builder("inbox.handler.duration")
            .tag("inbox", inbox)
            .description("time spent in the handler, per message or per batch")
            .register(registry);
    for (WakeUpCause cause : WakeUpCause.values()) {
      wakeups.put(
          cause,
          Counter.builder("inbox.wakeups")
              .tag("inbox", inbox)
              .tag("cause", cause.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
  }

  /**
   * Registers the two gauges; {@link #close()} removes them again (a restarted worker registers
   * anew).
   */
  synchronized void registerGauges() {
    depthGauge =
        Gauge.builder("inbox.pending.depth", pendingDepth, AtomicLong::doubleValue)
            .tag("inbox", inbox)
            .description("messages waiting (backing off included, dead letters excluded)")
            .strongReference(true)
            .register(registry);
    ageGauge =
        Gauge.builder("inbox.pending.oldest.age", oldestAgeMillis, a -> a.get() / 1000.0)
            .tag("inbox", inbox)
            .baseUnit("seconds")
            .description("age of the oldest waiting message")
            .strongReference(true)
            .register(registry);
  }

  private Counter counter(String name, String inbox, String description) {
    return Counter.builder(name).tag("inbox", inbox).description(description).register(registry);
  }

  void wakeUp(WakeUpCause cause) {
    wakeups.get(cause).increment();
  }

  void pending(long depth, double oldestAgeSeconds) {
    pendingDepth.set(depth);
    oldestAgeMillis.set((long) (oldestAgeSeconds * 1000));
  }

  void handlerNanos(long nanos) {
    handlerDuration.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public synchronized void close() {
    if (depthGauge != null) {
      registry.remove(depthGauge);
      registry.remove(ageGauge);
      depthGauge = null;
      ageGauge = null;
    }
  }
}
