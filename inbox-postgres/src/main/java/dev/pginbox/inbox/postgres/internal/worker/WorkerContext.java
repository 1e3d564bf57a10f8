package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerOptions;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;

/** What every part of one worker shares. Exactly one of the two handlers is set. */
record WorkerContext(
    WorkerOptions options,
    String workerId,
    Jdbi jdbi,
    MessageHandler messageHandler,
    BatchHandler batchHandler,
    SafeListener listener,
    WorkerMetrics metrics,
    ClaimScope scope,
    Duration gaugeInterval,
    Duration retentionInterval,
    int retentionBatchSize) {

  String inbox() {
    return options.inbox();
  }
}
