package dev.pginbox.inbox.chaos;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a plan's messages at its rate: each aggregate's versions in order, one {@code sendAll} at a
 * time, with event ids that sort against the send order, some batches sent a second time
 * (duplicates). A send whose failure is transient ({@link InboxException#isTransient()}) is sent
 * again: sending is idempotent, so a send whose commit was lost with the server costs nothing.
 */
final class ChaosProducer {

  static final Duration SEND_GIVE_UP = Duration.ofMinutes(2);

  private static final Logger LOG = LoggerFactory.getLogger(ChaosProducer.class);

  private final PostgresInbox inbox;
  private final ChaosPlan plan;
  private final AtomicLong sendAttempts = new AtomicLong();
  private final AtomicLong transientFailures = new AtomicLong();
  private final AtomicInteger sent = new AtomicInteger();

  ChaosProducer(PostgresInbox inbox, ChaosPlan plan) {
    this.inbox = inbox;
    this.plan = plan;
  }

  void run() {
    List<NewMessage> previous = List.of();
    long started = System.nanoTime();
    int batches = 0;
    for (int first = 0; first < plan.messages(); first += plan.batchSize()) {
      List<NewMessage> batch = new ArrayList<>();
      for (int i = first; i < Math.min(first + plan.batchSize(), plan.messages()); i++) {
        batch.add(message(i));
      }
      send(batch);
      sent.addAndGet(batch.size());
      batches++;
      if (plan.duplicateEvery() > 0 && batches % plan.duplicateEvery() == 0) {
        send(previous);
      }
      previous = batch;
      long due =
          started + TimeUnit.SECONDS.toNanos(first + batch.size()) / plan.messagesPerSecond();
      long wait = due - System.nanoTime();
      if (wait > 0) {
        sleep(TimeUnit.NANOSECONDS.toMillis(wait));
      }
    }
    LOG.info("produced {} messages", plan.messages());
  }

  /** Messages acknowledged so far. */
  int sent() {
    return sent.get();
  }

  long sendAttempts() {
    return sendAttempts.get();
  }

  long transientFailures() {
    return transientFailures.get();
  }

  /**
   * Message {@code i}: aggregate {@code i mod aggregates}, version {@code i / aggregates + 1}, and
   * an event id from a bijective scramble of {@code i}, so ids sort in no relation to send order.
   */
  private NewMessage message(int i) {
    int aggregate = i % plan.aggregates();
    int version = i / plan.aggregates() + 1;
    String eventId = String.format("%08x", i * 0x9E3779B1);
    return NewMessage.of(eventId, "chaos", "agg-" + aggregate, "{\"v\": " + version + "}");
  }

  private void send(List<NewMessage> batch) {
    if (batch.isEmpty()) {
      return;
    }
    long giveUp = System.nanoTime() + SEND_GIVE_UP.toNanos();
    while (true) {
      sendAttempts.incrementAndGet();
      try {
        inbox.sendAll(batch);
        return;
      } catch (InboxException e) {
        if (!e.isTransient() || System.nanoTime() > giveUp) {
          throw e;
        }
        transientFailures.incrementAndGet();
        sleep(100);
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
