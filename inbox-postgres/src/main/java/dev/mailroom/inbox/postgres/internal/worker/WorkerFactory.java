package dev.mailroom.inbox.postgres.internal.worker;

import dev.mailroom.inbox.BatchHandler;
import dev.mailroom.inbox.InboxWorker;
import dev.mailroom.inbox.MessageHandler;
import dev.mailroom.inbox.WorkerListener;
import dev.mailroom.inbox.WorkerOptions;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Assembles a worker from what {@code dev.mailroom.inbox.postgres.PostgresInboxWorker.Builder}
 * collected (and validated); the only public way into this package.
 */
public final class WorkerFactory {

  private WorkerFactory() {}

  /** Exactly one of the two handlers is non-null. */
  public static InboxWorker create(DataSource dataSource, WorkerOptions options, MessageHandler messageHandler,
      BatchHandler batchHandler, WorkerListener listener, MeterRegistry registry, String workerId,
      Duration gaugeInterval, Duration retentionInterval, int retentionBatchSize) {
    WorkerContext ctx = new WorkerContext(options, workerId, WorkerConnection.jdbi(dataSource), messageHandler,
        batchHandler, new SafeListener(listener), new WorkerMetrics(registry, options.inbox()),
        new ClaimScope(options.partitions(), options.inbox(), workerId), gaugeInterval, retentionInterval,
        retentionBatchSize);
    return new WorkerRuntime(ctx);
  }
}
