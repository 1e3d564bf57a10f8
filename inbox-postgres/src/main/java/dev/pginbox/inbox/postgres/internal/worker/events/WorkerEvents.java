package dev.pginbox.inbox.postgres.internal.worker.events;

import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerListener.DispatchReason;
import dev.pginbox.inbox.WorkerListener.WakeUpCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a worker reports, to the meters (all tagged {@code inbox}) and to the application's {@link
 * WorkerListener}, whose exceptions are logged and never break a worker thread. Counters are
 * registered once per registry and shared by workers of the same inbox (Micrometer returns the
 * existing meter); the two gauges are removed on {@link #close()} so a restarted worker registers
 * fresh ones.
 */
public final class WorkerEvents implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerEvents.class);

  private final MeterRegistry registry;
  private final String inbox;
  private final WorkerListener listener;
  private final Counter claimed;
  private final Counter processed;
  private final Counter failed;
  private final Counter deadLettered;
  private final Counter skipped;
  private final Counter reconnects;
  private final Counter timeouts;
  private final Counter standbyRefusals;
  private final Counter partitionChanges;
  private final AtomicLong heldPartitions = new AtomicLong();
  private final AtomicBoolean onStandby = new AtomicBoolean();
  private final DistributionSummary batchSize;
  private final Timer handlerDuration;
  private final Map<WakeUpCause, Counter> wakeups = new EnumMap<>(WakeUpCause.class);
  private final AtomicLong pendingDepth = new AtomicLong();
  private final AtomicLong oldestAgeMillis = new AtomicLong();
  private Gauge depthGauge;
  private Gauge ageGauge;
  private Gauge heldGauge;

  /** Per role (processor, coordinator, listener): the SQLSTATE of an open refusal episode. */
  private final Map<String, String> refusals = new ConcurrentHashMap<>();

  public WorkerEvents(MeterRegistry registry, String inbox, WorkerListener listener) {
    this.registry = registry;
    this.inbox = inbox;
    this.listener = listener;
    claimed = counter("inbox.messages.claimed", "messages claimed by a worker");
    processed =
        counter("inbox.messages.processed", "messages marked processed by a committed batch");
    failed = counter("inbox.messages.failed", "failed attempts recorded (retry or dead)");
    deadLettered = counter("inbox.messages.dead_lettered", "messages that became dead letters");
    skipped = counter("inbox.messages.skipped", "messages the handler skipped (marked processed)");
    reconnects = counter("inbox.reconnects", "connection attempts after a failure");
    timeouts = counter("inbox.processing.timeouts", "batches taken away at the processing timeout");
    standbyRefusals =
        counter("inbox.standby.refusals", "statements a standby refused (read-only, in recovery)");
    partitionChanges =
        counter("inbox.partitions.changes", "changes of the partitions a worker holds");
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

  private Counter counter(String name, String description) {
    return Counter.builder(name).tag("inbox", inbox).description(description).register(registry);
  }

  public void wakeUp(WakeUpCause cause) {
    wakeups.get(cause).increment();
    tell(l -> l.onWakeUp(cause));
  }

  public void dispatched(int count, DispatchReason reason) {
    claimed.increment(count);
    batchSize.record(count);
    tell(l -> l.onDispatch(count, reason));
  }

  /** A batch of {@code count} claimed messages committed; {@code skipped} of them were skipped. */
  public void committed(int count, int processedCount, int skippedCount) {
    processed.increment(processedCount);
    skipped.increment(skippedCount);
    tell(l -> l.onBatchCommitted(count));
  }

  public void failuresRecorded(int recorded, int dead) {
    failed.increment(recorded);
    deadLettered.increment(dead);
  }

  public void handlerNanos(long nanos) {
    handlerDuration.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** A connection is (back) up; {@code tellListener}: it is the one the application hears about. */
  public void connected(boolean tellListener) {
    if (tellListener) {
      onStandby.set(false);
      tell(WorkerListener::onConnected);
    }
  }

  /** A connection failed and is retried after {@code retryIn}. */
  public void connectionLost(Throwable error, Duration retryIn, boolean tellListener) {
    reconnects.increment();
    if (tellListener) {
      tell(l -> l.onConnectionLost(error, retryIn));
    }
  }

  /** A processor's connection failed; it retries after {@code retryIn}. */
  public void processorConnectionLost(Throwable error, Duration retryIn) {
    tell(l -> l.onProcessorConnectionLost(error, retryIn));
  }

  /**
   * A server refused as a standby. True the first time since a connection last reached a primary:
   * the caller logs it, and the listener hears it only then.
   */
  public boolean standby(Throwable error, Duration retryIn) {
    standbyRefusals.increment();
    reconnects.increment();
    if (onStandby.compareAndSet(false, true)) {
      tell(l -> l.onStandby(error, retryIn));
      return true;
    }
    return false;
  }

  /** A processor's transaction ran on a primary: a standby episode, if any, is over. */
  public void primaryReached() {
    if (onStandby.compareAndSet(true, false)) {
      tell(WorkerListener::onConnected);
    }
  }

  /** A batch was taken away at the processing timeout while handling {@code eventIds}. */
  public void processingTimedOut(List<String> eventIds) {
    timeouts.increment();
    tell(l -> l.onProcessingTimeout(eventIds));
  }

  /** The worker now holds these partitions (automatic partitions). */
  public void partitionsChanged(Set<Integer> held, int partitions) {
    partitionChanges.increment();
    heldPartitions.set(held.size());
    tell(l -> l.onPartitionsChanged(held, partitions));
  }

  /** The worker's rank among the live workers that spread over the buckets changed. */
  public void peersChanged(int rank, int peers) {
    tell(l -> l.onPeersChanged(rank, peers));
  }

  /**
   * The database refused a role's work for an environmental reason (see {@code
   * SqlStates.isEnvironmental}): logged with the SQLSTATE and {@code description} (the server's
   * message, see {@code SqlStates.describe}) once per episode, and told to the listener; nothing is
   * charged.
   */
  public void refused(
      String role, String state, String description, Throwable error, Duration retryIn) {
    String before = refusals.put(role, state);
    if (state.equals(before)) {
      LOG.debug("inbox {}: {} still refused (SQLSTATE {})", inbox, role, state, error);
      return;
    }
    LOG.error(
        "inbox {}: the database refuses the {}'s work (SQLSTATE {}): {}; nothing is charged, the"
            + " messages stay pending, retrying in {} ms until it works",
        inbox,
        role,
        state,
        description,
        retryIn.toMillis());
    tell(l -> l.onDatabaseRefused(state, error, retryIn));
  }

  /** A role's work succeeded: ends its refusal episode, if one was open. */
  public void recovered(String role) {
    if (!refusals.isEmpty() && refusals.remove(role) != null) {
      LOG.warn("inbox {}: the database accepts the {}'s work again", inbox, role);
      if (refusals.isEmpty()) {
        tell(WorkerListener::onDatabaseRecovered);
      }
    }
  }

  /** No refusal episode is open. */
  public boolean healthy() {
    return refusals.isEmpty() && !onStandby.get();
  }

  public void pending(long depth, double oldestAgeSeconds) {
    pendingDepth.set(depth);
    oldestAgeMillis.set((long) (oldestAgeSeconds * 1000));
  }

  /** Registers the two gauges; {@link #close()} removes them again. */
  public synchronized void registerGauges() {
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
    heldGauge =
        Gauge.builder("inbox.partitions.held", heldPartitions, AtomicLong::doubleValue)
            .tag("inbox", inbox)
            .description("partitions this worker holds (automatic partitions)")
            .strongReference(true)
            .register(registry);
  }

  @Override
  public synchronized void close() {
    if (depthGauge != null) {
      registry.remove(depthGauge);
      registry.remove(ageGauge);
      registry.remove(heldGauge);
      depthGauge = null;
      heldGauge = null;
      ageGauge = null;
    }
  }

  private void tell(Consumer<WorkerListener> call) {
    try {
      call.accept(listener);
    } catch (RuntimeException e) {
      LOG.warn("worker listener threw; ignored", e);
    }
  }
}
