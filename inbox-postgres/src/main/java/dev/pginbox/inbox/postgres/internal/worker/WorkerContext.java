package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;

/**
 * The configuration and shared services of one worker, the same for every run. Exactly one of the
 * two handlers is set; {@code boundary} is null for the worker's own connections; {@code failures}
 * logs the handler's failed attempts.
 */
record WorkerContext(
    WorkerOptions options,
    String workerId,
    Jdbi jdbi,
    MessageHandler messageHandler,
    BatchHandler batchHandler,
    ClaimPermits permits,
    BatchTransactionBoundary boundary,
    WorkerEvents events,
    FailureLog failures,
    ClaimScope scope,
    Duration gaugeInterval,
    Duration retentionInterval,
    int retentionBatchSize) {

  String inbox() {
    return options.inbox();
  }

  /**
   * Whether any waiting message makes a batch to send at once (zero batch timeout, or batches of
   * one), so a notification can go straight to a processor without a count.
   */
  boolean claimsOnHint() {
    return options.batchTimeout().isZero() || options.batchSize() == 1;
  }
}
