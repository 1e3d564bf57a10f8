package dev.mailroom.collector;

import dev.mailroom.config.ConfigException;
import dev.mailroom.config.DataSources;
import dev.mailroom.config.EnvironmentConfig;
import dev.mailroom.config.MailroomConfig;
import dev.mailroom.embedded.EmbeddedDatabase;
import dev.mailroom.embedded.SecretKeyStore;
import dev.mailroom.ops.OperatorHttp;
import dev.mailroom.output.TokenOutput;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.schema.SchemaInstaller;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.http.InboxHttp;
import dev.pginbox.inbox.http.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The collector process: reads the environment, connects (or starts the embedded database), runs an
 * inbox worker with {@link TokenCollector} until stopped, and returns the exit code: 0 after a
 * requested stop (the current batch finished or rolled back), 1 when the worker failed (stdout
 * closed, say: the batch was rolled back), 2 for a configuration error. Every input and output
 * (environment, stdout, stderr, clock) is injected, so tests run it in-process.
 */
public final class Collector {

  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILURE = 1;

  /** What the process talks to. */
  public record Io(Map<String, String> env, OutputStream stdout, PrintStream stderr, Clock clock) {}

  private final Io io;
  private final boolean demo;
  private final MeterRegistry registry;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final CountDownLatch started = new CountDownLatch(1);
  private volatile InboxWorker worker;
  private volatile CollectorListener listener;

  public Collector(Io io, boolean demo, MeterRegistry registry) {
    this.io = io;
    this.demo = demo;
    this.registry = registry == null ? new SimpleMeterRegistry() : registry;
  }

  /** Runs until {@link #stop(String)} or a fatal error; returns the exit code. */
  public int run() {
    try {
      return configureAndCollect();
    } finally {
      started.countDown();
    }
  }

  private int configureAndCollect() {
    CollectorLog log = new CollectorLog(io.stderr(), io.clock(), false);
    MailroomConfig config;
    try {
      config = EnvironmentConfig.read(io.env());
    } catch (ConfigException e) {
      log.error(e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    log = new CollectorLog(io.stderr(), io.clock(), config.debug());
    for (String warning : config.warnings()) {
      log.warn(warning);
    }
    log.info(config.describe());

    EmbeddedDatabase embedded = null;
    try {
      if (config.database() == null) {
        log.info(
            EnvironmentConfig.DATABASE_URL
                + " not set; starting an embedded PostgreSQL in "
                + config.dataDir());
        embedded = EmbeddedDatabase.start(config.dataDir(), config.embeddedPort(), io.env());
        config = config.withDatabase(embedded.settings());
        SchemaInstaller.install(
            DataSources.of(config.database()), config.queue(), config.channel());
        log.info("embedded PostgreSQL ready; connect with: " + embedded.psqlCommand());
        if (config.secretKey() == null) {
          SecretKeyStore.Loaded key = SecretKeyStore.loadOrGenerate(config.dataDir());
          if (key.generated()) {
            log.warn("**************************************************************************");
            log.warn("MAILROOM_SECRET_KEY not set: GENERATED a new signing key in " + key.file());
            log.warn("tokens verify only with that key; set MAILROOM_SECRET_KEY for real use");
            log.warn("**************************************************************************");
          } else {
            log.warn("MAILROOM_SECRET_KEY not set: using the generated key in " + key.file());
          }
          config = config.withSecretKey(key.key());
        }
      } else if (config.secretKey() == null) {
        log.error(
            EnvironmentConfig.SECRET_KEY
                + " must be a 64-character hex string (or set "
                + EnvironmentConfig.SECRET_KEY_FILE
                + ")");
        return ConfigException.EXIT_CODE;
      }
      return collect(config, log);
    } catch (ConfigException e) {
      log.error(e.getMessage());
      return ConfigException.EXIT_CODE;
    } catch (IOException | SQLException | RuntimeException e) {
      log.error(e.getMessage() == null ? e.toString() : e.getMessage());
      return EXIT_FAILURE;
    } finally {
      if (embedded != null) {
        try {
          embedded.close();
        } catch (IOException e) {
          log.warn("stopping the embedded PostgreSQL failed: " + e.getMessage());
        }
      }
    }
  }

  private int collect(MailroomConfig config, CollectorLog log) {
    DataSource dataSource = DataSources.of(config.database());
    log.info("connecting to " + config.database().describe());
    if (inboxMissing(dataSource, config, log)) {
      log.error(
          "inbox "
              + config.queue()
              + " does not exist; install the schema first: "
              + "java -jar mailroom-app.jar install (or psql -f sql/inbox/install.sql, then sql/mailroom/install.sql)");
      return EXIT_FAILURE;
    }
    SendRateLimiter limiter =
        config.sendRate() == null
            ? null
            : SendRateLimiter.of(config.sendRate(), config.batchLimit());
    // MAILROOM_HTTP_PORT: the metrics also go to a Prometheus registry that /metrics scrapes.
    PrometheusMeterRegistry prometheus =
        OperatorHttp.enabled(io.env()) ? InboxHttp.prometheusRegistry() : null;
    MeterRegistry metrics = registry;
    if (prometheus != null) {
      CompositeMeterRegistry both = new CompositeMeterRegistry();
      both.add(registry);
      both.add(prometheus);
      metrics = both;
    }
    TokenCollector handler =
        new TokenCollector(
            new TokenSigner(config.secretKey()),
            new TokenOutput(io.stdout()),
            log,
            limiter,
            metrics,
            config.queue());
    listener =
        new CollectorListener(
            log, config.database().describe(), limiter, () -> stopRequested.getCount() == 0);
    WorkerOptions options =
        WorkerOptions.builder(config.queue())
            .batchSize(config.batchLimit())
            .batchTimeout(config.batchTimeout())
            .pollInterval(config.pollInterval())
            .channel(config.channel())
            .partitions(config.partitions())
            // Several processors: each claims its own batch (one message per account in flight, the
            // claim keeps priority order per claim) and TokenOutput writes each batch's lines at
            // once.
            .concurrency(config.concurrency())
            // A slow reader can block a write for a while: the watchdog must not take a batch away
            // (and send it twice) because stdout is slow. The rate budget's wait also counts here.
            .processingTimeout(processingTimeout(config))
            .build();
    worker = CollectorWorkers.create(dataSource, options, handler, listener, metrics);
    InboxHttp http =
        prometheus == null
            ? null
            : OperatorHttp.configure(io.env(), dataSource, worker, new Readiness(), prometheus);
    DemoSignups demoSignups = demo ? new DemoSignups(dataSource, log) : null;
    InboxHttp.Running server = null;
    try {
      if (http != null) {
        server = OperatorHttp.start(io.env(), http);
        log.info(
            "health, metrics and console on http://"
                + server.address().getHostString()
                + ":"
                + server.address().getPort()
                + "/");
      }
      worker.start();
      started.countDown();
      if (demoSignups != null) {
        demoSignups.start();
      }
      while (!stopRequested.await(200, TimeUnit.MILLISECONDS)) {
        if (!worker.isRunning()) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      log.error("cannot start the HTTP server: " + e.getMessage());
      return EXIT_FAILURE;
    } finally {
      if (demoSignups != null) {
        demoSignups.stop();
      }
      worker.stop();
      if (server != null) {
        server.close();
      }
    }
    Optional<Throwable> failure = worker.failure();
    if (failure.isPresent()) {
      Throwable error = failure.get();
      if (error instanceof HandlerAbortException) {
        log.error(
            error.getMessage()
                + "; the batch was rolled back, nothing was marked processed. exiting...");
      } else {
        log.error("worker failed: " + error);
      }
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  }

  static Duration processingTimeout(MailroomConfig config) {
    Duration base = Duration.ofMinutes(5);
    if (config.sendRate() == null) {
      return base;
    }
    return base.plusMillis((long) Math.ceil(config.batchLimit() * 1000 / config.sendRate()));
  }

  /**
   * False when the inbox exists (or the database cannot be asked right now: the worker will keep
   * retrying). Warns when the inbox notifies on another channel than MAILROOM_CHANNEL_NAME: the
   * collector would then only find tokens by polling.
   */
  private static boolean inboxMissing(
      DataSource dataSource, MailroomConfig config, CollectorLog log) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT to_regclass('inbox.inbox_config') IS NOT NULL")) {
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return true;
        }
      }
      try (PreparedStatement q =
          c.prepareStatement(
              "SELECT notify_channel FROM inbox.inbox_config WHERE inbox_name = ?")) {
        q.setString(1, config.queue());
        try (ResultSet rs = q.executeQuery()) {
          if (!rs.next()) {
            return true;
          }
          String channel = rs.getString(1);
          if (channel != null && !channel.equals(config.channel())) {
            log.warn(
                "inbox "
                    + config.queue()
                    + " notifies on channel "
                    + channel
                    + ", not on "
                    + EnvironmentConfig.CHANNEL_NAME
                    + "="
                    + config.channel()
                    + "; new tokens are found by polling only");
          }
          return false;
        }
      }
    } catch (SQLException e) {
      // The database may be down right now; the worker reconnects with backoff.
      log.warn("cannot check the schema now: " + e.getMessage());
      return false;
    }
  }

  /**
   * Asks the collector to stop (from a signal handler or a test); the current batch finishes or
   * rolls back. {@code reason} is logged, e.g. {@code signal 15 received. exiting...}.
   */
  public void stop(String reason) {
    if (stopRequested.getCount() > 0 && reason != null) {
      new CollectorLog(io.stderr(), io.clock(), false).info(reason);
    }
    stopRequested.countDown();
  }

  /** Waits until the worker has started, or the collector has ended without starting it (tests). */
  public boolean awaitStarted(Duration timeout) throws InterruptedException {
    return started.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether the worker's connection is up (as far as its events tell). */
  public boolean isConnected() {
    CollectorListener l = listener;
    return l != null && l.isConnected();
  }
}
