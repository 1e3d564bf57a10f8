package dev.pginbox.inbox.postgres.internal.worker;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

/**
 * What a worker is given to work with: the database, the application's handler (exactly one of the
 * two is set), the claim permits it shares, the transaction boundary (null: the worker's own
 * connections), where it reports (the application's listener, the meter registry) and, for a
 * distributed inbox, how it reaches the worker nodes (null: copies of its pgJDBC DataSource).
 */
public record WorkerDependencies(
    DataSource dataSource,
    MessageHandler messageHandler,
    BatchHandler batchHandler,
    ClaimPermits permits,
    BatchTransactionBoundary boundary,
    WorkerListener listener,
    MeterRegistry registry,
    NodeDataSources nodeDataSources) {

  public WorkerDependencies {
    if ((messageHandler == null) == (batchHandler == null)) {
      throw new IllegalArgumentException("exactly one of the two handlers must be set");
    }
  }
}
