package dev.pginbox.inbox.citus;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The test suite's worker of a distributed inbox: the worker runtime ({@link PostgresInboxWorker}),
 * which claims shard by shard on a distributed inbox, reached over a line the suite can cut ({@link
 * CuttableDataSource}) to play a crash. Poll only, one processor, message handlers.
 */
public final class ShardWorker implements AutoCloseable {

  /** How a worker runs. */
  public record Options(
      String inbox, String workerId, int batchSize, Duration lease, Duration poll) {}

  /** An orderly stop waits this long for the batch in hand; a killed worker's is cut at once. */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(2);

  private final CuttableDataSource line;
  private final InboxWorker worker;
  private final AtomicLong processed = new AtomicLong();

  public ShardWorker(String coordinatorUrl, Options options, MessageHandler handler) {
    this.line = new CuttableDataSource(dataSource(coordinatorUrl));
    WorkerOptions workerOptions =
        WorkerOptions.builder(options.inbox())
            .batchSize(options.batchSize())
            .pollInterval(options.poll())
            .partitions(new PartitionAssignment.Automatic(1, options.lease()))
            .shutdownGrace(SHUTDOWN_GRACE)
            .build();
    this.worker =
        PostgresInboxWorker.builder(line, workerOptions)
            .handler(handler)
            .workerId(options.workerId())
            .nodeDataSources(
                (host, port) -> line.sameLine(dataSource(CitusCluster.url(host, port))))
            .listener(
                new WorkerListener() {
                  @Override
                  public void onBatchCommitted(int count) {
                    processed.addAndGet(count);
                  }
                })
            .build();
  }

  private static PGSimpleDataSource dataSource(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    return ds;
  }

  public ShardWorker start() {
    worker.start();
    return this;
  }

  /** Messages this worker processed (committed). */
  public long processed() {
    return processed.get();
  }

  /** The partitions (shards, in hash order) it held at its last heartbeat. */
  public List<Integer> partitions() {
    return worker.heldPartitions().stream().sorted().toList();
  }

  /** A crash: every connection aborted mid-transaction, no goodbye; its leases simply expire. */
  public void kill() throws SQLException {
    line.cut();
    worker.stop();
  }

  /** Orderly stop: the batch in hand ends, then the worker gives its leases up. */
  @Override
  public void close() {
    worker.stop();
  }
}
