package dev.pginbox.inbox.postgres;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.internal.worker.PostgresWorker;
import dev.pginbox.inbox.postgres.internal.worker.WorkerConfig;
import dev.pginbox.inbox.postgres.internal.worker.WorkerDependencies;
import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Builds the PostgreSQL {@link InboxWorker}:
 *
 * <pre>{@code
 * InboxWorker worker = PostgresInboxWorker.builder(dataSource, WorkerOptions.builder("orders").build())
 *     .handler((message, tx) -> {
 *       tx.unwrap(Handle.class).execute("INSERT INTO order_log(id) VALUES (?)", message.eventId());
 *       return Outcome.processed();
 *     })
 *     .build();
 * worker.start();
 * }</pre>
 *
 * The data source should hand out plain connections (a pool is fine): the worker keeps one per
 * processor, one to count waiting messages, one to LISTEN (unless poll only) and one for
 * maintenance (plus one for leases in the automatic partition mode). See docs/consuming.md.
 */
public final class PostgresInboxWorker {

  public static final Duration DEFAULT_GAUGE_INTERVAL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETENTION_INTERVAL = Duration.ofMinutes(1);
  public static final int DEFAULT_RETENTION_BATCH_SIZE = 1000;

  /**
   * The longest worker id ({@link Builder#workerId}), as {@code inbox.worker_announce} takes it.
   */
  public static final int MAX_WORKER_ID_LENGTH = 200;

  private PostgresInboxWorker() {}

  public static Builder builder(DataSource dataSource, WorkerOptions options) {
    return new Builder(dataSource, options);
  }

  public static final class Builder {
    private final DataSource dataSource;
    private final WorkerOptions options;
    private MessageHandler handler;
    private BatchHandler batchHandler;
    private ClaimPermits claimPermits = ClaimPermits.UNLIMITED;
    private BatchTransactionBoundary transactionBoundary;
    private WorkerListener listener = WorkerListener.NONE;
    private MeterRegistry meterRegistry;
    private String workerId;
    private Duration gaugeInterval = DEFAULT_GAUGE_INTERVAL;
    private Duration retentionInterval = DEFAULT_RETENTION_INTERVAL;
    private int retentionBatchSize = DEFAULT_RETENTION_BATCH_SIZE;
    private NodeDataSources nodeDataSources;

    private Builder(DataSource dataSource, WorkerOptions options) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.options = Objects.requireNonNull(options, "options");
    }

    /** Handles messages one at a time, each in a savepoint of the batch's transaction. */
    public Builder handler(MessageHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Handles a whole batch at once (no savepoints: a thrown exception fails the whole batch). */
    public Builder batchHandler(BatchHandler batchHandler) {
      this.batchHandler = Objects.requireNonNull(batchHandler, "batchHandler");
      return this;
    }

    /**
     * A budget asked before every claim (for example a send rate): a processor claims at most what
     * it is granted and gives back what the claim did not use. Default: no budget. See {@link
     * ClaimPermits}.
     */
    public Builder claimPermits(ClaimPermits claimPermits) {
      this.claimPermits = Objects.requireNonNull(claimPermits, "claimPermits");
      return this;
    }

    /**
     * Where each batch's transaction begins and ends; default: a connection of each processor's own
     * from the data source, autocommit off. See {@link BatchTransactionBoundary}.
     */
    public Builder transactionBoundary(BatchTransactionBoundary transactionBoundary) {
      this.transactionBoundary = Objects.requireNonNull(transactionBoundary, "transactionBoundary");
      return this;
    }

    /**
     * On a distributed (Citus) inbox, how to reach the worker node that holds a shard: the worker
     * claims there. Default: a copy of the data source with the node's host and port when it is
     * pgJDBC's; with another data source (a pool) a worker of a distributed inbox refuses to start
     * without this. Unused on a single server. See {@link NodeDataSources}.
     */
    public Builder nodeDataSources(NodeDataSources nodeDataSources) {
      this.nodeDataSources = Objects.requireNonNull(nodeDataSources, "nodeDataSources");
      return this;
    }

    /** Observes wake-ups, dispatches, commits and connection changes (for logs). */
    public Builder listener(WorkerListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Where the metrics go; default a private {@link SimpleMeterRegistry}. */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
      return this;
    }

    /**
     * This worker's identity in the automatic partition mode; default host, pid and a random
     * suffix.
     */
    public Builder workerId(String workerId) {
      if (workerId == null || workerId.isBlank() || workerId.length() > MAX_WORKER_ID_LENGTH) {
        throw new InvalidInboxArgumentException(
            "workerId must be 1 to " + MAX_WORKER_ID_LENGTH + " characters", options.inbox());
      }
      this.workerId = workerId;
      return this;
    }

    /** How often the pending depth and oldest-age gauges are refreshed (one query each time). */
    public Builder gaugeInterval(Duration interval) {
      this.gaugeInterval = requirePositive(interval, "gaugeInterval");
      return this;
    }

    /** How often the retention sweep runs (one elected worker per inbox at a time). */
    public Builder retentionInterval(Duration interval) {
      this.retentionInterval = requirePositive(interval, "retentionInterval");
      return this;
    }

    /** Rows deleted per retention transaction. */
    public Builder retentionBatchSize(int rows) {
      if (rows < 1) {
        throw new InvalidInboxArgumentException(
            "retentionBatchSize must be at least 1", options.inbox());
      }
      this.retentionBatchSize = rows;
      return this;
    }

    public InboxWorker build() {
      if ((handler == null) == (batchHandler == null)) {
        throw new InvalidInboxArgumentException(
            "set exactly one of handler(...) and batchHandler(...)", options.inbox());
      }
      return PostgresWorker.create(
          new WorkerConfig(
              options,
              workerId != null ? workerId : defaultWorkerId(),
              gaugeInterval,
              retentionInterval,
              retentionBatchSize),
          new WorkerDependencies(
              dataSource,
              handler,
              batchHandler,
              claimPermits,
              transactionBoundary,
              listener,
              meterRegistry != null ? meterRegistry : new SimpleMeterRegistry(),
              nodeDataSources));
    }

    private Duration requirePositive(Duration d, String name) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new InvalidInboxArgumentException(name + " must be positive", options.inbox());
      }
      return d;
    }
  }

  static String defaultWorkerId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    return host
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }
}
