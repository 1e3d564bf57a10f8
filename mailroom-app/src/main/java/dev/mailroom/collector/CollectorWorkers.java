package dev.mailroom.collector;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

/** The one place that builds the inbox worker of the public inbox-postgres API. */
final class CollectorWorkers {

  private CollectorWorkers() {}

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
