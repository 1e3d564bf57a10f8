package dev.pginbox.inbox;

import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link InboxWorker} consumes. Build with {@link #builder(String)}.
 *
 * <p>Batching rule: as soon as {@code batchSize} messages are waiting a full batch goes out, and
 * full batches keep going out back to back; fewer than a batch wait at most {@code batchTimeout},
 * counted from the first wake-up (notification or poll that saw a message). {@code pollInterval} is
 * the fallback when no notification arrives; with {@code listen = false} the worker only polls
 * (PgBouncer transaction pooling).
 *
 * @param concurrency batches handled at once by this worker (threads, each with its own connection)
 * @param processingTimeout a batch whose handler runs longer is rolled back and counts as failed
 * @param shutdownGrace how long {@link InboxWorker#stop()} lets in-flight batches finish
 * @param idleConnectionCheck null = none; else a connection of the worker unused for this long is
 *     checked ({@code SELECT 1}) and, when dead, replaced at once rather than when the next batch
 *     needs it (a processor's connection idles as long as no message arrives; the LISTEN connection
 *     of a half-open TCP connection would otherwise wait forever)
 * @param maxBatchBytes the most payload bytes one batch may hold, counted as PostgreSQL stores them
 *     ({@code pg_column_size}): the claim stops adding messages before the sum passes it, but
 *     always claims at least one, so a bigger payload is handled alone; {@link
 *     #NO_BATCH_BYTE_LIMIT} claims by count only
 * @param lowerPriorityEvery with a priority map: every n-th batch a processor claims takes only
 *     messages below the most urgent priority waiting (when any can be claimed), so those get at
 *     least that share of the batches however many urgent messages keep coming; 0 (the default):
 *     strict priority order
 * @param claimAhead one processor more than {@code concurrency} (and one connection more): it
 *     claims the next batch while the current one is handled and committed, and its handler starts
 *     once that batch has committed, so no more than {@code concurrency} handlers run at once and
 *     each sees the writes of the batches handled before it (the worker's transactions are READ
 *     COMMITTED: its transaction began before their commit, its statements after). Off by default;
 *     see docs/consuming.md, "Claim ahead"
 * @param messagesPerAggregate on an ordered inbox, how many messages of one aggregate a batch may
 *     hold: its head and the messages right behind it, handed to the handler in order (1, the
 *     default: heads only). After a message fails, the batch's later messages of its aggregate are
 *     not handled and go back to the queue uncharged (a batch handler that reports one of them done
 *     is called again without them, its call's writes rolled back); see docs/consuming.md, "Several
 *     messages of an aggregate in one batch"
 */
public record WorkerOptions(
    String inbox,
    int batchSize,
    Duration batchTimeout,
    Duration pollInterval,
    boolean listen,
    String channel,
    PartitionAssignment partitions,
    int concurrency,
    Duration processingTimeout,
    Duration shutdownGrace,
    Duration reconnectInitialDelay,
    Duration reconnectMaxDelay,
    boolean retention,
    Duration idleConnectionCheck,
    long maxBatchBytes,
    int lowerPriorityEvery,
    boolean claimAhead,
    int messagesPerAggregate) {

  public static final int DEFAULT_BATCH_SIZE = 100;
  public static final Duration DEFAULT_BATCH_TIMEOUT = Duration.ZERO;
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_PROCESSING_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RECONNECT_INITIAL_DELAY = Duration.ofMillis(100);
  public static final Duration DEFAULT_RECONNECT_MAX_DELAY = Duration.ofSeconds(30);

  /**
   * 16 MiB: far above a batch of ordinary messages (100 messages of 160 KB each), so it never
   * shortens their batches, yet it keeps a batch of big payloads to what a small heap can read:
   * reading a batch takes about two to three times its bytes of heap (the driver's row buffers,
   * then the strings), so about 50 MB per processor thread at most.
   */
  public static final long DEFAULT_MAX_BATCH_BYTES = 16L * 1024 * 1024;

  /** For {@link Builder#maxBatchBytes(long)}: no byte budget, batches are limited by count only. */
  public static final long NO_BATCH_BYTE_LIMIT = Long.MAX_VALUE;

  public WorkerOptions {
    InboxNames.requireValid(inbox);
    if (batchSize < 1) {
      throw new InvalidInboxArgumentException(
          "batchSize must be at least 1, got " + batchSize, inbox);
    }
    if (concurrency < 1) {
      throw new InvalidInboxArgumentException(
          "concurrency must be at least 1, got " + concurrency, inbox);
    }
    requireNonNegative(batchTimeout, "batchTimeout", inbox);
    requirePositive(pollInterval, "pollInterval", inbox);
    requirePositive(processingTimeout, "processingTimeout", inbox);
    requireNonNegative(shutdownGrace, "shutdownGrace", inbox);
    requirePositive(reconnectInitialDelay, "reconnectInitialDelay", inbox);
    requirePositive(reconnectMaxDelay, "reconnectMaxDelay", inbox);
    if (lowerPriorityEvery < 0 || lowerPriorityEvery == 1) {
      throw new InvalidInboxArgumentException(
          "lowerPriorityEvery must be 0 (never) or at least 2, got " + lowerPriorityEvery, inbox);
    }
    if (messagesPerAggregate < 1) {
      throw new InvalidInboxArgumentException(
          "messagesPerAggregate must be at least 1, got " + messagesPerAggregate, inbox);
    }
    if (maxBatchBytes < 1) {
      throw new InvalidInboxArgumentException(
          "maxBatchBytes must be at least 1, got " + maxBatchBytes, inbox);
    }
    Objects.requireNonNull(partitions, "partitions");
    if (idleConnectionCheck != null) {
      requirePositive(idleConnectionCheck, "idleConnectionCheck", inbox);
    }
  }

  private static void requireNonNegative(Duration d, String name, String inbox) {
    if (d == null || d.isNegative()) {
      throw new InvalidInboxArgumentException(name + " must be zero or positive", inbox);
    }
  }

  private static void requirePositive(Duration d, String name, String inbox) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidInboxArgumentException(name + " must be positive", inbox);
    }
  }

  public static Builder builder(String inbox) {
    return new Builder(inbox);
  }

  /** Builder with the DEFAULT_* values. */
  public static final class Builder {
    private final String inbox;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration batchTimeout = DEFAULT_BATCH_TIMEOUT;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private boolean listen = true;
    private String channel;
    private PartitionAssignment partitions = PartitionAssignment.all();
    private int concurrency = 1;
    private Duration processingTimeout = DEFAULT_PROCESSING_TIMEOUT;
    private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
    private Duration reconnectInitialDelay = DEFAULT_RECONNECT_INITIAL_DELAY;
    private Duration reconnectMaxDelay = DEFAULT_RECONNECT_MAX_DELAY;
    private boolean retention = true;
    private Duration idleConnectionCheck;
    private long maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
    private int lowerPriorityEvery;
    private boolean claimAhead;
    private int messagesPerAggregate = 1;

    private Builder(String inbox) {
      this.inbox = inbox;
    }

    public Builder batchSize(int v) {
      batchSize = v;
      return this;
    }

    public Builder batchTimeout(Duration v) {
      batchTimeout = v;
      return this;
    }

    public Builder pollInterval(Duration v) {
      pollInterval = v;
      return this;
    }

    /** false = poll only, no LISTEN (for PgBouncer transaction pooling). */
    public Builder listen(boolean v) {
      listen = v;
      return this;
    }

    /** The LISTEN channel; null = the inbox's own channel from its catalog row. */
    public Builder channel(String v) {
      channel = v;
      return this;
    }

    public Builder partitions(PartitionAssignment v) {
      partitions = v;
      return this;
    }

    public Builder concurrency(int v) {
      concurrency = v;
      return this;
    }

    public Builder processingTimeout(Duration v) {
      processingTimeout = v;
      return this;
    }

    public Builder shutdownGrace(Duration v) {
      shutdownGrace = v;
      return this;
    }

    public Builder reconnectBackoff(Duration initial, Duration max) {
      reconnectInitialDelay = initial;
      reconnectMaxDelay = max;
      return this;
    }

    /**
     * Whether this worker takes part in the retention sweep (one elected worker at a time runs it).
     */
    public Builder retention(boolean v) {
      retention = v;
      return this;
    }

    /**
     * Checks a connection idle for {@code v} ({@code SELECT 1}) and replaces it when dead; null
     * (the default) = no check, a dead connection is noticed when next used.
     */
    public Builder idleConnectionCheck(Duration v) {
      idleConnectionCheck = v;
      return this;
    }

    /**
     * The most payload bytes one batch may hold (at least one message is always claimed); {@link
     * #NO_BATCH_BYTE_LIMIT} for none.
     */
    public Builder maxBatchBytes(long v) {
      maxBatchBytes = v;
      return this;
    }

    /**
     * Every {@code n}-th batch of a processor goes to the messages below the most urgent priority
     * waiting (0: never, the default; 1 would starve the top priority, so it is refused).
     */
    public Builder lowerPriorityEvery(int n) {
      lowerPriorityEvery = n;
      return this;
    }

    /**
     * Claims the next batch while the current one is handled and committed (one more processor and
     * connection; handlers still run one at a time per unit of concurrency). Off by default.
     */
    public Builder claimAhead(boolean v) {
      claimAhead = v;
      return this;
    }

    /**
     * On an ordered inbox, up to {@code n} messages of one aggregate per batch, in order (1, the
     * default: one, its head).
     */
    public Builder messagesPerAggregate(int n) {
      messagesPerAggregate = n;
      return this;
    }

    public WorkerOptions build() {
      return new WorkerOptions(
          inbox,
          batchSize,
          batchTimeout,
          pollInterval,
          listen,
          channel,
          partitions,
          concurrency,
          processingTimeout,
          shutdownGrace,
          reconnectInitialDelay,
          reconnectMaxDelay,
          retention,
          idleConnectionCheck,
          maxBatchBytes,
          lowerPriorityEvery,
          claimAhead,
          messagesPerAggregate);
    }
  }
}
