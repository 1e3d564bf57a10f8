package dev.mailroom.mailroom;

import dev.mailroom.inbox.BatchHandler;
import dev.mailroom.inbox.InboxWorker;
import dev.mailroom.inbox.WorkerListener;
import dev.mailroom.inbox.WorkerOptions;
import dev.mailroom.inbox.postgres.PostgresInboxWorker;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

/** The one place that builds the inbox worker of the public inbox-postgres API. */
final class CollectorWorkers {

  private CollectorWorkers() {}

  static InboxWorker create(DataSource dataSource, WorkerOptions options, BatchHandler handler,
      WorkerListener listener, MeterRegistry registry) {
    return PostgresInboxWorker.builder(dataSource, options)
        .batchHandler(handler)
        .listener(listener)
        .meterRegistry(registry)
        .build();
  }
}
