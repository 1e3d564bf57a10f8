package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.WorkerOptions;
import java.time.Duration;

/**
 * What a worker is configured with: the options the builder validated, and the worker's own
 * settings beside them.
 *
 * @param workerId this worker's identity among the inbox's workers (leases, registry)
 * @param gaugeInterval how often the pending gauges are read and the worker announces itself
 * @param retentionInterval how often the retention sweep runs
 * @param retentionBatchSize the rows one retention step deletes at most
 */
public record WorkerConfig(
    WorkerOptions options,
    String workerId,
    Duration gaugeInterval,
    Duration retentionInterval,
    int retentionBatchSize) {

  public String inbox() {
    return options.inbox();
  }
}
