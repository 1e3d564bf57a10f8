package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerOptions;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code inbox.*} properties. Every default is the library's own ({@link InboxOptions}, {@link
 * WorkerOptions}): written as literals because {@code @DefaultValue} takes constant strings only,
 * and pinned to the options by {@code InboxPropertiesDefaultsTest}.
 *
 * @param install apply the inbox SQL API ({@code InboxManager.install()}) on start-up; turn it off
 *     when Flyway or Liquibase installs it ({@code classpath:db/inbox})
 * @param inboxes the inboxes this application uses, by name
 * @param actuator what the {@code inbox} Actuator endpoint may do
 * @param startWorkers start the workers with the application context; tests set it to false and
 *     drive each worker themselves ({@code InboxProbe.drain(lifecycle.worker())}), so no running
 *     worker races them
 */
@ConfigurationProperties("inbox")
public record InboxProperties(
    @DefaultValue("true") boolean install,
    Map<String, InboxDefinition> inboxes,
    @DefaultValue Actuator actuator,
    @DefaultValue("true") boolean startWorkers) {

  public InboxProperties {
    inboxes = inboxes == null ? Map.of() : Map.copyOf(inboxes);
    Objects.requireNonNull(actuator, "actuator");
  }

  /** The definition of inbox {@code name}: its properties, or every default. */
  InboxDefinition inbox(String name) {
    return inboxes.getOrDefault(name, InboxDefinition.defaults());
  }

  /**
   * One inbox: created on start-up when missing (with these options), and consumed by a worker when
   * the application has a listener for it.
   *
   * @param create create the inbox on start-up when it does not exist
   * @param maxRetries failed attempts before a message becomes a dead letter
   * @param processedRetention how long processed messages are kept (whole hours)
   * @param dlqRetention how long dead letters are kept (whole hours)
   * @param dedupRetention how long a processed event id keeps deduplicating (whole hours; unset: as
   *     long as processed-retention)
   * @param channel the LISTEN/NOTIFY channel (unset: inbox_NAME)
   * @param backoffBase first retry delay
   * @param backoffMax longest retry delay
   * @param degradedAge oldest pending age at which health turns degraded
   * @param criticalAge oldest pending age at which health turns critical
   * @param degradedPending pending count at which health turns degraded
   * @param criticalPending pending count at which health turns critical
   * @param worker how this application's worker consumes the inbox
   */
  public record InboxDefinition(
      @DefaultValue("true") boolean create,
      @DefaultValue("3") int maxRetries,
      @DefaultValue("72h") Duration processedRetention,
      @DefaultValue("168h") Duration dlqRetention,
      Duration dedupRetention,
      String channel,
      @DefaultValue("1s") Duration backoffBase,
      @DefaultValue("5m") Duration backoffMax,
      @DefaultValue("30s") Duration degradedAge,
      @DefaultValue("120s") Duration criticalAge,
      @DefaultValue("10000") long degradedPending,
      @DefaultValue("100000") long criticalPending,
      @DefaultValue Worker worker) {

    /** An inbox that has a listener but no {@code inbox.inboxes.NAME} properties. */
    static InboxDefinition defaults() {
      InboxOptions o = InboxOptions.defaults();
      return new InboxDefinition(
          true,
          o.maxRetries(),
          o.processedRetention(),
          o.dlqRetention(),
          o.dedupRetention(),
          o.channel(),
          o.backoffBase(),
          o.backoffMax(),
          Duration.ofSeconds(o.degradedAgeSeconds()),
          Duration.ofSeconds(o.criticalAgeSeconds()),
          o.degradedPending(),
          o.criticalPending(),
          Worker.defaults());
    }

    /** The options of {@code inbox.create_inbox}. */
    public InboxOptions options() {
      return InboxOptions.builder()
          .maxRetries(maxRetries)
          .processedRetention(processedRetention)
          .dlqRetention(dlqRetention)
          .dedupRetention(dedupRetention)
          .channel(channel)
          .backoff(backoffBase, backoffMax)
          .degradedAt((int) degradedAge.toSeconds(), degradedPending)
          .criticalAt((int) criticalAge.toSeconds(), criticalPending)
          .build();
    }
  }

  /**
   * A worker's options ({@link WorkerOptions}).
   *
   * @param enabled start a worker for this inbox when the application has a listener for it
   * @param batchSize messages claimed per batch
   * @param batchTimeout how long fewer than a batch may wait for more (0: go at once)
   * @param pollInterval fallback poll when no notification arrives
   * @param listen LISTEN for notifications (false: poll only, for PgBouncer transaction pooling)
   * @param concurrency batches handled at once (each on its own connection)
   * @param processingTimeout a batch whose handler runs longer is rolled back
   * @param shutdownGrace how long stopping lets in-flight batches finish
   * @param partitions which partitions this worker claims
   * @param maxBatchBytes the most payload bytes one batch may hold (at least one message is always
   *     claimed)
   * @param lowerPriorityEvery every n-th batch goes to the messages below the most urgent priority
   *     waiting (0: strict priority)
   * @param claimAhead claim the next batch while the current one is handled and committed (one
   *     connection more; handlers still run one at a time per unit of concurrency)
   * @param messagesPerAggregate on an ordered inbox, up to this many messages of one aggregate per
   *     batch, in order (1: its head only)
   */
  public record Worker(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("100") int batchSize,
      @DefaultValue("0s") Duration batchTimeout,
      @DefaultValue("1s") Duration pollInterval,
      @DefaultValue("true") boolean listen,
      @DefaultValue("1") int concurrency,
      @DefaultValue("30s") Duration processingTimeout,
      @DefaultValue("10s") Duration shutdownGrace,
      @DefaultValue Partitions partitions,
      @DefaultValue("16MB") DataSize maxBatchBytes,
      @DefaultValue("0") int lowerPriorityEvery,
      @DefaultValue("false") boolean claimAhead,
      @DefaultValue("1") int messagesPerAggregate) {

    static Worker defaults() {
      WorkerOptions o = WorkerOptions.builder("defaults").build();
      return new Worker(
          true,
          o.batchSize(),
          o.batchTimeout(),
          o.pollInterval(),
          o.listen(),
          o.concurrency(),
          o.processingTimeout(),
          o.shutdownGrace(),
          new Partitions(
              PartitionMode.ALL,
              0,
              1,
              PartitionAssignment.Automatic.DEFAULT_PARTITIONS,
              PartitionAssignment.Automatic.DEFAULT_LEASE,
              null),
          DataSize.ofBytes(o.maxBatchBytes()),
          o.lowerPriorityEvery(),
          o.claimAhead(),
          o.messagesPerAggregate());
    }

    WorkerOptions options(String inbox) {
      return WorkerOptions.builder(inbox)
          .batchSize(batchSize)
          .batchTimeout(batchTimeout)
          .pollInterval(pollInterval)
          .listen(listen)
          .concurrency(concurrency)
          .processingTimeout(processingTimeout)
          .shutdownGrace(shutdownGrace)
          .partitions(partitions.assignment())
          .maxBatchBytes(maxBatchBytes.toBytes())
          .lowerPriorityEvery(lowerPriorityEvery)
          .claimAhead(claimAhead)
          .messagesPerAggregate(messagesPerAggregate)
          .build();
    }
  }

  /** How partitions are assigned: {@code all}, {@code static} or {@code automatic}. */
  public enum PartitionMode {
    ALL,
    STATIC,
    AUTOMATIC
  }

  /**
   * Which partitions a worker claims (docs/consuming.md, "Partitions").
   *
   * @param mode all (every message), static (partition id of count) or automatic (leases shared
   *     among live workers)
   * @param id this worker's partition, 0 to count - 1 (static)
   * @param count the number of partitions (static)
   * @param automaticPartitions the number of partitions shared out (automatic)
   * @param leaseDuration how long a partition lease lasts without a heartbeat (automatic)
   * @param workerId this worker's id among the inbox's live workers (automatic; default host, pid
   *     and a random suffix, new at every start). A stable id, such as a pod's name, takes its
   *     leases back at once after a restart; two workers running at once must not share one.
   */
  public record Partitions(
      @DefaultValue("all") PartitionMode mode,
      @DefaultValue("0") int id,
      @DefaultValue("1") int count,
      @DefaultValue("32") int automaticPartitions,
      @DefaultValue("10s") Duration leaseDuration,
      String workerId) {

    PartitionAssignment assignment() {
      return switch (mode) {
        case ALL -> PartitionAssignment.all();
        case STATIC -> PartitionAssignment.of(id, count);
        case AUTOMATIC -> new PartitionAssignment.Automatic(automaticPartitions, leaseDuration);
      };
    }
  }

  /**
   * The {@code inbox} Actuator endpoint.
   *
   * @param writeOperations allow replaying dead letters and purging through the endpoint (off:
   *     read-only)
   * @param maxPageSize the most messages one read of the endpoint returns
   */
  public record Actuator(
      @DefaultValue("false") boolean writeOperations, @DefaultValue("100") int maxPageSize) {}
}
