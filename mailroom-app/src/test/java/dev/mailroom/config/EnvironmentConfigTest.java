package dev.mailroom.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.PartitionAssignment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnvironmentConfigTest {

  static final String KEY = "cafebabe".repeat(8);

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATABASE_URL", "dbname=mailroom");
    env.put("MAILROOM_SECRET_KEY", KEY);
    env.put("USER", "ogu");
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] == null) {
        env.remove(pairs[i]);
      } else {
        env.put(pairs[i], pairs[i + 1]);
      }
    }
    return env;
  }

  @Test
  void defaults_are_the_originals() {
    MailroomConfig c = EnvironmentConfig.read(env());
    assertThat(c.describe())
        .isEqualTo(
            "configured; channel=token_insert queue=mailroom limit=10 timeout=5000ms healthcheck-interval=270000ms");
    assertThat(c.warnings()).isEmpty();
    assertThat(c.partitions()).isEqualTo(PartitionAssignment.all());
    assertThat(c.sendRate()).isNull();
    assertThat(c.secretKey()).isEqualTo(HexFormat.of().parseHex(KEY));
    assertThat(c.dataDir()).isEqualTo(Path.of("mailroom-data"));
  }

  @Test
  void tutorial_settings() {
    MailroomConfig c =
        EnvironmentConfig.read(
            env(
                "MAILROOM_BATCH_LIMIT",
                "3",
                "MAILROOM_BATCH_TIMEOUT",
                "5000",
                "MAILROOM_CHANNEL_NAME",
                "tokens_x",
                "MAILROOM_QUEUE_NAME",
                "q2",
                "MAILROOM_SECRET_KEY",
                KEY.toUpperCase()));
    assertThat(c.describe())
        .isEqualTo(
            "configured; channel=tokens_x queue=q2 limit=3 timeout=5000ms healthcheck-interval=270000ms");
    assertThat(c.secretKey()).isEqualTo(HexFormat.of().parseHex(KEY));
  }

  @Test
  void unparsable_numbers_warn_and_use_the_default() {
    MailroomConfig c =
        EnvironmentConfig.read(
            env(
                "MAILROOM_BATCH_LIMIT",
                "ten",
                "MAILROOM_BATCH_TIMEOUT",
                "5s",
                "MAILROOM_HEALTHCHECK_INTERVAL",
                "99999999999",
                "MAILROOM_POLL_INTERVAL",
                "1e3"));
    assertThat(c.batchLimit()).isEqualTo(10);
    assertThat(c.batchTimeout()).isEqualTo(Duration.ofMillis(5000));
    assertThat(c.healthcheckInterval()).isEqualTo(Duration.ofMillis(270000));
    assertThat(c.pollInterval()).isEqualTo(Duration.ofMillis(1000));
    assertThat(c.concurrency()).isEqualTo(1);
    assertThat(c.warnings())
        .containsExactly(
            "invalid value for MAILROOM_BATCH_LIMIT: ten, using default: 10",
            "invalid value for MAILROOM_BATCH_TIMEOUT: 5s, using default: 5000",
            "value for MAILROOM_HEALTHCHECK_INTERVAL is out of range: 99999999999, using default: 270000",
            "invalid value for MAILROOM_POLL_INTERVAL: 1e3, using default: 1000");
  }

  @Test
  void values_that_must_not_be_defaulted_are_errors() {
    assertError(env("MAILROOM_BATCH_TIMEOUT", "-1"), "MAILROOM_BATCH_TIMEOUT must not be negative");
    assertError(
        env("MAILROOM_BATCH_TIMEOUT", "6000", "MAILROOM_HEALTHCHECK_INTERVAL", "5000"),
        "MAILROOM_HEALTHCHECK_INTERVAL (5000ms) must be positive and at least MAILROOM_BATCH_TIMEOUT (6000ms)");
    assertError(env("MAILROOM_POLL_INTERVAL", "0"), "MAILROOM_POLL_INTERVAL must be a positive");
    assertError(env("MAILROOM_CONCURRENCY", "0"), "MAILROOM_CONCURRENCY must be 1 to 16, got: 0");
    assertError(env("MAILROOM_CONCURRENCY", "17"), "MAILROOM_CONCURRENCY must be 1 to 16, got: 17");
    assertError(
        env("MAILROOM_DATABASE_URL", "dbname='x"), "invalid MAILROOM_DATABASE_URL: unterminated");
    assertError(env("MAILROOM_CHANNEL_NAME", "bad-channel"), "MAILROOM_CHANNEL_NAME must be");
    assertError(env("MAILROOM_QUEUE_NAME", "Bad"), "MAILROOM_QUEUE_NAME must be");
    assertError(env("MAILROOM_SEND_RATE", "fast"), "MAILROOM_SEND_RATE must be a positive number");
    assertError(env("MAILROOM_SEND_RATE", "0"), "MAILROOM_SEND_RATE must be a positive number");
    assertError(env("MAILROOM_EMBEDDED_PORT", "0"), "MAILROOM_EMBEDDED_PORT must be a TCP port");
  }

  @Test
  void an_absurd_batch_limit_is_refused_naming_the_variable_and_the_range() {
    for (String absurd : new String[] {"1100000000", "10001", "99999999999", "0", "-3"}) {
      assertThatThrownBy(() -> EnvironmentConfig.read(env("MAILROOM_BATCH_LIMIT", absurd)))
          .isInstanceOf(ConfigException.class)
          .hasMessage("MAILROOM_BATCH_LIMIT must be 1 to 10000, got: " + absurd);
    }
    assertThat(EnvironmentConfig.read(env("MAILROOM_BATCH_LIMIT", "10000")).batchLimit())
        .isEqualTo(10000);
    assertThat(EnvironmentConfig.read(env("MAILROOM_BATCH_LIMIT", "1")).batchLimit()).isEqualTo(1);
  }

  @Test
  void bad_secret_keys_are_errors_and_never_echoed() {
    for (String bad :
        new String[] {"cafebabe", KEY + "0", KEY.substring(1) + "g", "x".repeat(64)}) {
      assertThatThrownBy(() -> EnvironmentConfig.read(env("MAILROOM_SECRET_KEY", bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessage("MAILROOM_SECRET_KEY must be a 64-character hex string");
    }
    MailroomConfig c = EnvironmentConfig.read(env());
    assertThat(c.toString()).doesNotContain(KEY).doesNotContain(KEY.toUpperCase());
  }

  @Test
  void secret_key_file(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("key");
    Files.writeString(file, KEY + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    MailroomConfig c =
        EnvironmentConfig.read(
            env("MAILROOM_SECRET_KEY", null, "MAILROOM_SECRET_KEY_FILE", file.toString()));
    assertThat(c.secretKey()).isEqualTo(HexFormat.of().parseHex(KEY));
    assertError(env("MAILROOM_SECRET_KEY_FILE", file.toString()), "set only one of");
    assertError(
        env(
            "MAILROOM_SECRET_KEY",
            null,
            "MAILROOM_SECRET_KEY_FILE",
            dir.resolve("missing").toString()),
        "cannot read MAILROOM_SECRET_KEY_FILE");
    Files.writeString(file, "nothex");
    assertError(
        env("MAILROOM_SECRET_KEY", null, "MAILROOM_SECRET_KEY_FILE", file.toString()),
        "must contain a 64-character hex string");
  }

  @Test
  void no_url_and_no_key_mean_embedded_mode() {
    MailroomConfig c =
        EnvironmentConfig.read(
            env(
                "MAILROOM_DATABASE_URL",
                null,
                "MAILROOM_SECRET_KEY",
                null,
                "MAILROOM_DATA_DIR",
                "/tmp/x"));
    assertThat(c.database()).isNull();
    assertThat(c.secretKey()).isNull();
    assertThat(c.dataDir()).isEqualTo(Path.of("/tmp/x"));
  }

  @Test
  void partitions() {
    assertThat(
            EnvironmentConfig.read(
                    env("MAILROOM_PARTITION_ID", "1", "MAILROOM_PARTITION_COUNT", "4"))
                .partitions())
        .isEqualTo(PartitionAssignment.of(1, 4));
    assertThat(EnvironmentConfig.read(env("MAILROOM_PARTITION_MODE", "auto")).partitions())
        .isEqualTo(PartitionAssignment.automatic());
    assertThat(
            EnvironmentConfig.read(
                    env("MAILROOM_PARTITION_MODE", "AUTO", "MAILROOM_PARTITION_COUNT", "8"))
                .partitions())
        .isInstanceOfSatisfying(
            PartitionAssignment.Automatic.class, a -> assertThat(a.partitions()).isEqualTo(8));
    assertError(
        env("MAILROOM_PARTITION_ID", "1"),
        "set both MAILROOM_PARTITION_ID and MAILROOM_PARTITION_COUNT");
    assertError(
        env("MAILROOM_PARTITION_ID", "4", "MAILROOM_PARTITION_COUNT", "4"),
        "MAILROOM_PARTITION_ID must be an integer in 0..3");
    assertError(
        env("MAILROOM_PARTITION_ID", "x", "MAILROOM_PARTITION_COUNT", "4"),
        "MAILROOM_PARTITION_ID must be");
    assertError(env("MAILROOM_PARTITION_MODE", "static"), "needs MAILROOM_PARTITION_ID");
    assertError(
        env("MAILROOM_PARTITION_MODE", "sometimes"),
        "MAILROOM_PARTITION_MODE must be static, auto or none");
  }

  @Test
  void worker_id_for_automatic_partitions() {
    assertThat(EnvironmentConfig.read(env()).workerId()).isNull();
    MailroomConfig c =
        EnvironmentConfig.read(
            env("MAILROOM_PARTITION_MODE", "auto", "MAILROOM_WORKER_ID", "collector-0"));
    assertThat(c.workerId()).isEqualTo("collector-0");
    assertThat(c.warnings()).isEmpty();
    MailroomConfig ignored = EnvironmentConfig.read(env("MAILROOM_WORKER_ID", "collector-0"));
    assertThat(ignored.workerId()).isNull();
    assertThat(ignored.warnings())
        .containsExactly("MAILROOM_WORKER_ID is ignored without MAILROOM_PARTITION_MODE=auto");
    assertError(
        env("MAILROOM_PARTITION_MODE", "auto", "MAILROOM_WORKER_ID", " "),
        "MAILROOM_WORKER_ID must be 1 to 200 characters");
    assertError(
        env("MAILROOM_PARTITION_MODE", "auto", "MAILROOM_WORKER_ID", "x".repeat(201)),
        "MAILROOM_WORKER_ID must be 1 to 200 characters");
  }

  @Test
  void claim_ahead_is_off_unless_asked_for_and_an_unknown_value_is_an_error() {
    assertThat(EnvironmentConfig.read(env()).claimAhead()).isFalse();
    assertThat(EnvironmentConfig.read(env("MAILROOM_CLAIM_AHEAD", "1")).claimAhead()).isTrue();
    assertThat(EnvironmentConfig.read(env("MAILROOM_CLAIM_AHEAD", " TRUE ")).claimAhead()).isTrue();
    assertThat(EnvironmentConfig.read(env("MAILROOM_CLAIM_AHEAD", "0")).claimAhead()).isFalse();
    assertThat(EnvironmentConfig.read(env("MAILROOM_CLAIM_AHEAD", "false")).claimAhead()).isFalse();
    assertError(
        env("MAILROOM_CLAIM_AHEAD", "yes"),
        "MAILROOM_CLAIM_AHEAD must be 1 or 0 (true or false), got: yes");
  }

  @Test
  void send_rate_and_log_level() {
    assertThat(EnvironmentConfig.read(env("MAILROOM_SEND_RATE", "0.38")).sendRate())
        .isEqualTo(0.38);
    MailroomConfig c = EnvironmentConfig.read(env("MAILROOM_LOG_LEVEL", "verbose"));
    assertThat(c.debug()).isFalse();
    assertThat(c.warnings())
        .containsExactly("invalid value for MAILROOM_LOG_LEVEL: verbose, using default: info");
    assertThat(EnvironmentConfig.read(env("MAILROOM_LOG_LEVEL", "DEBUG")).debug()).isTrue();
  }

  private static void assertError(Map<String, String> env, String message) {
    assertThatThrownBy(() -> EnvironmentConfig.read(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }
}
