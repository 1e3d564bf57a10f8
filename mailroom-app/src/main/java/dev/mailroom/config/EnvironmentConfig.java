package dev.mailroom.config;

import dev.pginbox.inbox.InboxNames;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the collector's configuration from the environment, as the original did: the same variables
 * and defaults, {@code WARN: invalid value for X: V, using default: D} (and the out-of-range
 * variant) for unparsable numbers, and a {@link ConfigException} (exit code 2) for what must not be
 * guessed: a bad secret key, a batch limit outside 1..{@value MailroomConfig#MAX_BATCH_LIMIT}, a
 * health-check interval shorter than the batch timeout, a malformed database URL, bad partition
 * settings.
 */
public final class EnvironmentConfig {

  public static final String DATABASE_URL = "MAILROOM_DATABASE_URL";
  public static final String SECRET_KEY = "MAILROOM_SECRET_KEY";
  public static final String SECRET_KEY_FILE = "MAILROOM_SECRET_KEY_FILE";
  public static final String CHANNEL_NAME = "MAILROOM_CHANNEL_NAME";
  public static final String QUEUE_NAME = "MAILROOM_QUEUE_NAME";
  public static final String BATCH_LIMIT = "MAILROOM_BATCH_LIMIT";
  public static final String BATCH_TIMEOUT = "MAILROOM_BATCH_TIMEOUT";
  public static final String HEALTHCHECK_INTERVAL = "MAILROOM_HEALTHCHECK_INTERVAL";
  public static final String POLL_INTERVAL = "MAILROOM_POLL_INTERVAL";
  public static final String PARTITION_MODE = "MAILROOM_PARTITION_MODE";
  public static final String PARTITION_ID = "MAILROOM_PARTITION_ID";
  public static final String PARTITION_COUNT = "MAILROOM_PARTITION_COUNT";
  public static final String SEND_RATE = "MAILROOM_SEND_RATE";
  public static final String DATA_DIR = "MAILROOM_DATA_DIR";
  public static final String EMBEDDED_PORT = "MAILROOM_EMBEDDED_PORT";
  public static final String LOG_LEVEL = "MAILROOM_LOG_LEVEL";
  public static final String CONCURRENCY = "MAILROOM_CONCURRENCY";
  public static final String WORKER_ID = "MAILROOM_WORKER_ID";
  public static final String CLAIM_AHEAD = "MAILROOM_CLAIM_AHEAD";

  private static final Pattern HEX_KEY = Pattern.compile("[0-9a-fA-F]{64}");
  private static final Pattern CHANNEL = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  private final Map<String, String> env;
  private final EnvironmentValues values;

  private EnvironmentConfig(Map<String, String> env) {
    this.env = env;
    this.values = new EnvironmentValues(env);
  }

  public static MailroomConfig read(Map<String, String> env) {
    return new EnvironmentConfig(env).read();
  }

  private MailroomConfig read() {
    String url = values.value(DATABASE_URL);
    ConnectionSettings database = null;
    if (url != null) {
      try {
        database = DatabaseUrl.parse(url, env);
      } catch (MalformedDatabaseUrlException e) {
        throw new ConfigException("invalid " + DATABASE_URL + ": " + e.getMessage());
      }
    }
    byte[] key = secretKey();
    String channel = values.orDefault(CHANNEL_NAME, MailroomConfig.DEFAULT_CHANNEL);
    if (!CHANNEL.matcher(channel).matches()) {
      throw new ConfigException(
          CHANNEL_NAME
              + " must be 1 to 63 characters A-Z, a-z, 0-9 and _, not starting"
              + " with a digit, got: "
              + channel);
    }
    String queue = values.orDefault(QUEUE_NAME, MailroomConfig.DEFAULT_QUEUE);
    if (!InboxNames.isValid(queue)) {
      throw new ConfigException(
          QUEUE_NAME
              + " must be 1 to "
              + InboxNames.MAX_LENGTH
              + " characters a-z, 0-9 and _, starting with a letter, got: "
              + queue);
    }
    int limit =
        values.integer(
            BATCH_LIMIT, MailroomConfig.DEFAULT_BATCH_LIMIT, 1, MailroomConfig.MAX_BATCH_LIMIT);
    long timeout = values.integer(BATCH_TIMEOUT, MailroomConfig.DEFAULT_BATCH_TIMEOUT_MS);
    if (timeout < 0) {
      throw new ConfigException(BATCH_TIMEOUT + " must not be negative, got: " + timeout);
    }
    long healthcheck =
        values.integer(HEALTHCHECK_INTERVAL, MailroomConfig.DEFAULT_HEALTHCHECK_INTERVAL_MS);
    if (healthcheck < timeout || healthcheck <= 0) {
      throw new ConfigException(
          HEALTHCHECK_INTERVAL
              + " ("
              + healthcheck
              + "ms) must be positive and at least "
              + BATCH_TIMEOUT
              + " ("
              + timeout
              + "ms)");
    }
    long poll = values.integer(POLL_INTERVAL, MailroomConfig.DEFAULT_POLL_INTERVAL_MS);
    if (poll <= 0) {
      throw new ConfigException(
          POLL_INTERVAL + " must be a positive number of milliseconds, got: " + poll);
    }
    long concurrency = values.integer(CONCURRENCY, MailroomConfig.DEFAULT_CONCURRENCY);
    if (concurrency < 1 || concurrency > MailroomConfig.MAX_CONCURRENCY) {
      throw new ConfigException(
          CONCURRENCY
              + " must be 1 to "
              + MailroomConfig.MAX_CONCURRENCY
              + ", got: "
              + concurrency);
    }
    long port = values.integer(EMBEDDED_PORT, MailroomConfig.DEFAULT_EMBEDDED_PORT);
    if (port < 1 || port > 65535) {
      throw new ConfigException(EMBEDDED_PORT + " must be a TCP port (1-65535), got: " + port);
    }
    PartitionAssignment partitions = partitions();
    return new MailroomConfig(
        database,
        key,
        channel,
        queue,
        limit,
        Duration.ofMillis(timeout),
        Duration.ofMillis(healthcheck),
        Duration.ofMillis(poll),
        partitions,
        sendRate(),
        Path.of(values.orDefault(DATA_DIR, MailroomConfig.DEFAULT_DATA_DIR)),
        (int) port,
        debug(),
        values.warnings(),
        (int) concurrency,
        workerId(partitions),
        claimAhead());
  }

  /** A new variable, so a value it does not know is an error, not a fallback. */
  private boolean claimAhead() {
    String raw = values.value(CLAIM_AHEAD);
    if (raw == null) {
      return false;
    }
    return switch (raw.strip().toLowerCase(Locale.ROOT)) {
      case "1", "true" -> true;
      case "0", "false" -> false;
      default ->
          throw new ConfigException(CLAIM_AHEAD + " must be 1 or 0 (true or false), got: " + raw);
    };
  }

  /** The collector's id for automatic partitions: a stable one takes its leases back at restart. */
  private String workerId(PartitionAssignment partitions) {
    String id = values.value(WORKER_ID);
    if (id == null) {
      return null;
    }
    if (id.isBlank() || id.length() > PostgresInboxWorker.MAX_WORKER_ID_LENGTH) {
      throw new ConfigException(
          WORKER_ID
              + " must be 1 to "
              + PostgresInboxWorker.MAX_WORKER_ID_LENGTH
              + " characters, not blank");
    }
    if (!(partitions instanceof PartitionAssignment.Automatic)) {
      values.warn(WORKER_ID + " is ignored without " + PARTITION_MODE + "=auto");
      return null;
    }
    return id;
  }

  private byte[] secretKey() {
    String inline = values.value(SECRET_KEY);
    String file = values.value(SECRET_KEY_FILE);
    if (inline != null && file != null) {
      throw new ConfigException("set only one of " + SECRET_KEY + " and " + SECRET_KEY_FILE);
    }
    String hex = inline;
    String origin = SECRET_KEY;
    if (file != null) {
      try {
        hex = KeyFile.read(Path.of(file), SECRET_KEY_FILE).strip();
      } catch (InvalidPathException e) {
        throw new ConfigException(SECRET_KEY_FILE + " is not a valid path: " + e.getMessage());
      }
      origin = SECRET_KEY_FILE;
    }
    if (hex == null) {
      return null;
    }
    if (!HEX_KEY.matcher(hex).matches()) {
      // The value itself is never echoed: it may be a real key with one typo.
      throw new ConfigException(
          origin.equals(SECRET_KEY)
              ? SECRET_KEY + " must be a 64-character hex string"
              : "the file in " + SECRET_KEY_FILE + " must contain a 64-character hex string");
    }
    return HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
  }

  private PartitionAssignment partitions() {
    String mode = values.orDefault(PARTITION_MODE, "").toLowerCase(Locale.ROOT);
    String id = values.value(PARTITION_ID);
    String count = values.value(PARTITION_COUNT);
    switch (mode) {
      case "auto" -> {
        int partitions =
            count == null
                ? PartitionAssignment.Automatic.DEFAULT_PARTITIONS
                : EnvironmentValues.strictInt(PARTITION_COUNT, count, 1, 1024);
        if (id != null) {
          values.warn(PARTITION_ID + " is ignored with " + PARTITION_MODE + "=auto");
        }
        return PartitionAssignment.automatic(partitions);
      }
      case "", "static" -> {
        if (id == null && count == null) {
          if (mode.equals("static")) {
            throw new ConfigException(
                PARTITION_MODE + "=static needs " + PARTITION_ID + " and " + PARTITION_COUNT);
          }
          return PartitionAssignment.all();
        }
        if (id == null || count == null) {
          throw new ConfigException(
              "set both "
                  + PARTITION_ID
                  + " and "
                  + PARTITION_COUNT
                  + " (or "
                  + PARTITION_MODE
                  + "=auto)");
        }
        int total = EnvironmentValues.strictInt(PARTITION_COUNT, count, 1, 1024);
        int own = EnvironmentValues.strictInt(PARTITION_ID, id, 0, total - 1);
        return PartitionAssignment.of(own, total);
      }
      case "none", "all" -> {
        return PartitionAssignment.all();
      }
      default ->
          throw new ConfigException(PARTITION_MODE + " must be static, auto or none, got: " + mode);
    }
  }

  private Double sendRate() {
    String raw = values.value(SEND_RATE);
    if (raw == null) {
      return null;
    }
    // A budget must not silently become "unlimited": a bad value stops the collector.
    try {
      double rate = Double.parseDouble(raw.strip());
      if (rate > 0 && !Double.isInfinite(rate)) {
        return rate;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigException(
        SEND_RATE + " must be a positive number of emails per second (e.g. 0.38), got: " + raw);
  }

  private boolean debug() {
    String level = values.orDefault(LOG_LEVEL, "info").toLowerCase(Locale.ROOT);
    if (!level.equals("info") && !level.equals("debug")) {
      values.warn("invalid value for " + LOG_LEVEL + ": " + level + ", using default: info");
      return false;
    }
    return level.equals("debug");
  }
}
