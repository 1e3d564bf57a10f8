package dev.mailroom.collector;

import dev.pginbox.inbox.BatchHandler;
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
      MeterRegistry registry) {
    return PostgresInboxWorker.builder(dataSource, options)
        .batchHandler(handler)
        .listener(listener)
        .meterRegistry(registry)
        .build();
  }
}
