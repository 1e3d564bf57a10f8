package dev.mailroom.collector;

import dev.mailroom.config.MailroomConfig;
import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;

/** The one place that builds the inbox worker of the public inbox-postgres API, and its options. */
final class CollectorWorkers {

  /** The budget's wait happens before the claim, so it never counts against this. */
  private static final Duration PROCESSING_TIMEOUT = Duration.ofMinutes(5);

  /** Activations' guaranteed share: at least one batch in four while they wait. */
  static final int LOWER_PRIORITY_EVERY = 4;

  private CollectorWorkers() {}

  /** The worker's options from the collector's configuration. */
  static WorkerOptions options(MailroomConfig config) {
    return WorkerOptions.builder(config.queue())
        .batchSize(config.batchLimit())
        .batchTimeout(config.batchTimeout())
        .pollInterval(config.pollInterval())
        // The original's healthcheck: idle that long, a connection is checked and replaced if
        // dead, so a token after a quiet night does not find the connection dead.
        .idleConnectionCheck(config.healthcheckInterval())
        .channel(config.channel())
        .partitions(config.partitions())
        // Several processors: each claims its own batch (one message per account in flight, the
        // claim keeps priority order per claim) and TokenOutput writes each batch's lines at
        // once.
        .concurrency(config.concurrency())
        // One processor more, claiming the next batch while the current one is written; the
        // batches are still written one at a time per unit of concurrency (docs/mailroom.md).
        .claimAhead(config.claimAhead())
        // Password recovery comes before activation (the priority map), but a flood of
        // recoveries under a tight send budget must not hold activations back forever: every
        // LOWER_PRIORITY_EVERY-th batch goes to them when they wait (docs/mailroom.md).
        .lowerPriorityEvery(LOWER_PRIORITY_EVERY)
        // A slow reader (or SMTP server) can block a batch for a while: the watchdog must not
        // take a batch away (and send it twice) because its recipient is slow.
        .processingTimeout(PROCESSING_TIMEOUT)
        .build();
  }

  static InboxWorker create(
      DataSource dataSource,
      WorkerOptions options,
      BatchHandler handler,
      WorkerListener listener,
      ClaimPermits claimPermits,
      MeterRegistry registry,
      String workerId) {
    PostgresInboxWorker.Builder builder =
        PostgresInboxWorker.builder(dataSource, options)
            .batchHandler(handler)
            .listener(listener)
            // The send-rate budget: permits are taken before a claim, never inside a transaction.
            .claimPermits(claimPermits)
            .meterRegistry(registry);
    if (workerId != null) { // MAILROOM_WORKER_ID
      builder.workerId(workerId);
    }
    return builder.build();
  }
}
