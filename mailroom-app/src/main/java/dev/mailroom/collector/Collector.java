package dev.mailroom.collector;

import dev.mailroom.config.ConfigException;
import dev.mailroom.config.DataSources;
import dev.mailroom.config.EnvironmentConfig;
import dev.mailroom.config.MailroomConfig;
import dev.mailroom.delivery.Deliveries;
import dev.mailroom.delivery.DeliveryConfig;
import dev.mailroom.embedded.EmbeddedDatabase;
import dev.mailroom.embedded.SecretKeyStore;
import dev.mailroom.ops.OperatorHttp;
import dev.mailroom.output.TokenDelivery;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.schema.SchemaInstaller;
import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.HandlerAbortException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.http.Readiness;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
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

  /** The demo's wrapper of the delivery, or null outside the demo. */
  private final UnaryOperator<TokenDelivery> demoDelivery;

  private final MeterRegistry registry;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final CountDownLatch started = new CountDownLatch(1);
  private volatile InboxWorker worker;
  private volatile CollectorListener listener;
  private volatile MailroomConfig running;

  public Collector(Io io, MeterRegistry registry) {
    this(io, null, registry);
  }

  /**
   * The demo's collector: it signs up sample accounts, and {@code demoDelivery} wraps its delivery.
   */
  public Collector(Io io, UnaryOperator<TokenDelivery> demoDelivery, MeterRegistry registry) {
    this.io = io;
    this.demoDelivery = demoDelivery;
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
    DeliveryConfig delivery;
    try {
      config = EnvironmentConfig.read(io.env());
      delivery = DeliveryConfig.read(io.env());
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
      return collect(config, delivery, log);
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

  private int collect(MailroomConfig config, DeliveryConfig deliveryConfig, CollectorLog log) {
    DataSource dataSource = DataSources.of(config.database());
    log.info("connecting to " + config.database().describe());
    if (InboxCheck.inboxMissing(dataSource, config, log)) {
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
    if (deliveryConfig.mode() != DeliveryConfig.Mode.STDOUT) {
      log.info("delivering by " + deliveryConfig);
    }
    TokenDelivery configured = Deliveries.create(deliveryConfig, io.stdout());
    try (TokenDelivery delivery =
        demoDelivery == null ? configured : demoDelivery.apply(configured)) {
      running = config;
      return collect(config, dataSource, delivery, limiter, log);
    }
  }

  private int collect(
      MailroomConfig config,
      DataSource dataSource,
      TokenDelivery delivery,
      SendRateLimiter limiter,
      CollectorLog log) {
    OperatorHttp operatorHttp = OperatorHttp.fromEnvironment(io.env());
    MeterRegistry metrics = operatorHttp.metrics(registry);
    TokenCollector handler =
        new TokenCollector(
            new TokenSigner(config.secretKey()),
            delivery,
            log,
            metrics,
            config.queue(),
            limiter == null ? messages -> {} : limiter::release);
    // What /health/ready reports of the worker's connection (MAILROOM_HTTP_PORT).
    Readiness readiness = new Readiness();
    listener =
        new CollectorListener(log, config.database().describe(), readiness.track("collector"));
    worker =
        CollectorWorkers.create(
            dataSource,
            CollectorWorkers.options(config),
            handler,
            listener,
            limiter == null ? ClaimPermits.UNLIMITED : limiter,
            metrics,
            config.workerId());
    DemoSignups demoSignups = demoDelivery == null ? null : new DemoSignups(dataSource, log);
    OperatorHttp.Running http = null;
    try {
      http = operatorHttp.start(config.database(), worker, readiness, log::info);
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
      log.error("cannot serve MAILROOM_HTTP_PORT: " + e.getMessage());
      return EXIT_FAILURE;
    } finally {
      if (demoSignups != null) {
        demoSignups.stop();
      }
      worker.stop();
      if (http != null) {
        http.close();
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

  /**
   * The configuration the collector runs with once it has started (with the embedded database's
   * settings and the generated key in embedded mode), for what runs next to it (the demo's pages).
   */
  public Optional<MailroomConfig> runningConfig() {
    return Optional.ofNullable(running);
  }

  /** Whether the worker's connection is up (as far as its events tell). */
  public boolean isConnected() {
    CollectorListener l = listener;
    return l != null && l.isConnected();
  }
}
