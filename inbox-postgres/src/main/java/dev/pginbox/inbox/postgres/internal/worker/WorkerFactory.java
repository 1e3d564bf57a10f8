package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Assembles a worker from what {@code dev.pginbox.inbox.postgres.PostgresInboxWorker.Builder}
 * collected (and validated); the only public way into this package.
 */
public final class WorkerFactory {

  private WorkerFactory() {}

  /** Exactly one of the two handlers is non-null. */
  public static InboxWorker create(
      DataSource dataSource,
      WorkerOptions options,
      MessageHandler messageHandler,
      BatchHandler batchHandler,
      WorkerListener listener,
      MeterRegistry registry,
      String workerId,
      Duration gaugeInterval,
      Duration retentionInterval,
      int retentionBatchSize) {
    WorkerContext ctx =
        new WorkerContext(
            options,
            workerId,
            WorkerConnection.jdbi(dataSource),
            messageHandler,
            batchHandler,
            new SafeListener(listener),
            new WorkerMetrics(registry, options.inbox()),
            new ClaimScope(options.partitions(), options.inbox(), workerId),
            gaugeInterval,
            retentionInterval,
            retentionBatchSize);
    return new WorkerRuntime(ctx);
  }
}
