package dev.mailroom.config;

import dev.pginbox.inbox.PartitionAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The collector's configuration, read from the environment by {@link EnvironmentConfig}.
 *
 * @param database where to connect; null = embedded mode (no MAILROOM_DATABASE_URL)
 * @param secretKey the 32-byte HMAC key; null = none given (embedded mode generates one)
 * @param sendRate emails per second, or null for no budget
 * @param concurrency batches handled at once (processor threads, one connection each)
 * @param workerId the collector's id among the inbox's live workers (automatic partitions); null =
 *     the library's default (host, pid and a random suffix, new at every start)
 * @param warnings the {@code WARN: ...} messages of values that fell back to defaults
 * @param claimAhead claim the next batch while the current one is handled (one processor and
 *     connection more; {@code WorkerOptions.claimAhead})
 */
public record MailroomConfig(
    ConnectionSettings database,
    byte[] secretKey,
    String channel,
    String queue,
    int batchLimit,
    Duration batchTimeout,
    Duration healthcheckInterval,
    Duration pollInterval,
    PartitionAssignment partitions,
    Double sendRate,
    Path dataDir,
    int embeddedPort,
    boolean debug,
    List<String> warnings,
    int concurrency,
    String workerId,
    boolean claimAhead) {

  public static final String DEFAULT_CHANNEL = "token_insert";
  public static final String DEFAULT_QUEUE = "mailroom";
  public static final int DEFAULT_BATCH_LIMIT = 10;

  /**
   * A batch is one claim, one transaction and, when delivering by email, the at-least-once window:
   * beyond this, a typo (1100000000) would ask the database for the whole inbox at once.
   */
  public static final int MAX_BATCH_LIMIT = 10_000;

  public static final long DEFAULT_BATCH_TIMEOUT_MS = 5000;
  public static final long DEFAULT_HEALTHCHECK_INTERVAL_MS = 270000;
  public static final long DEFAULT_POLL_INTERVAL_MS = 1000;
  public static final String DEFAULT_DATA_DIR = "mailroom-data";
  public static final int DEFAULT_EMBEDDED_PORT = 54329;
  public static final int DEFAULT_CONCURRENCY = 1;
  public static final int MAX_CONCURRENCY = 16;

  public MailroomConfig {
    if (batchLimit < 1 || batchLimit > MAX_BATCH_LIMIT) {
      throw new ConfigException(
          EnvironmentConfig.BATCH_LIMIT
              + " must be 1 to "
              + MAX_BATCH_LIMIT
              + ", got: "
              + batchLimit);
    }
    warnings = List.copyOf(warnings);
  }

  public MailroomConfig withSecretKey(byte[] key) {
    return new MailroomConfig(
        database,
        key,
        channel,
        queue,
        batchLimit,
        batchTimeout,
        healthcheckInterval,
        pollInterval,
        partitions,
        sendRate,
        dataDir,
        embeddedPort,
        debug,
        warnings,
        concurrency,
        workerId,
        claimAhead);
  }

  public MailroomConfig withDatabase(ConnectionSettings settings) {
    return new MailroomConfig(
        settings,
        secretKey,
        channel,
        queue,
        batchLimit,
        batchTimeout,
        healthcheckInterval,
        pollInterval,
        partitions,
        sendRate,
        dataDir,
        embeddedPort,
        debug,
        warnings,
        concurrency,
        workerId,
        claimAhead);
  }

  /** The original's start-up line. */
  public String describe() {
    return "configured; channel="
        + channel
        + " queue="
        + queue
        + " limit="
        + batchLimit
        + " timeout="
        + batchTimeout.toMillis()
        + "ms healthcheck-interval="
        + healthcheckInterval.toMillis()
        + "ms";
  }

  /** Never prints the secret key. */
  @Override
  public String toString() {
    return "MailroomConfig["
        + describe()
        + ", database="
        + (database == null ? "embedded" : database.describe())
        + ", partitions="
        + partitions
        + ", sendRate="
        + sendRate
        + ", concurrency="
        + concurrency
        + ", claimAhead="
        + claimAhead
        + "]";
  }
}
