package dev.mailroom.ops;

import com.zaxxer.hikari.HikariDataSource;
import dev.mailroom.config.ConfigException;
import dev.mailroom.config.ConnectionSettings;
import dev.mailroom.web.HttpSettings;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.http.Credentials;
import dev.pginbox.inbox.http.InboxHttp;
import dev.pginbox.inbox.http.Readiness;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The collector's health, metrics and operator console (module inbox-http), switched on by setting
 * {@code MAILROOM_HTTP_PORT}; it listens on {@code MAILROOM_HTTP_HOST} (default 127.0.0.1: the
 * console shows token payloads). Write actions need {@code MAILROOM_HTTP_WRITE_ACTIONS=true} and
 * credentials ({@code INBOX_HTTP_USERS}, {@code INBOX_HTTP_USERS_FILE} or {@code
 * INBOX_HTTP_TOKEN}). The demo sets these for its collector (the console on the port after its
 * mailbox page). The console reads through a small pool of its own ({@link ConsolePool}), closed
 * with the server.
 */
public final class OperatorHttp {

  public static final String WRITE_ACTIONS = "MAILROOM_HTTP_WRITE_ACTIONS";

  private final Map<String, String> env;
  private final PrometheusMeterRegistry prometheus;

  private OperatorHttp(Map<String, String> env, PrometheusMeterRegistry prometheus) {
    this.env = env;
    this.prometheus = prometheus;
  }

  public static OperatorHttp fromEnvironment(Map<String, String> env) {
    String port = env.get(HttpSettings.PORT);
    boolean enabled = port != null && !port.isBlank();
    return new OperatorHttp(env, enabled ? InboxHttp.prometheusRegistry() : null);
  }

  /** The registry to meter into: {@code base}, plus the Prometheus one /metrics scrapes. */
  public MeterRegistry metrics(MeterRegistry base) {
    if (prometheus == null) {
      return base;
    }
    CompositeMeterRegistry both = new CompositeMeterRegistry();
    both.add(base);
    both.add(prometheus);
    return both;
  }

  /**
   * Starts the server (nothing when not switched on).
   *
   * @throws ConfigException for write actions without credentials or a bad port
   */
  public Running start(
      ConnectionSettings database, InboxWorker worker, Readiness readiness, Consumer<String> log)
      throws IOException {
    if (prometheus == null) {
      return new Running(null, null);
    }
    boolean writes = flag(env.get(WRITE_ACTIONS));
    Credentials credentials;
    try {
      credentials = Credentials.fromEnvironment(env);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    if (writes && !credentials.any()) {
      throw new ConfigException(
          WRITE_ACTIONS
              + "=true needs INBOX_HTTP_USERS, INBOX_HTTP_USERS_FILE or INBOX_HTTP_TOKEN");
    }
    HikariDataSource pool = ConsolePool.open(database);
    InboxHttp.Running server;
    try {
      InboxHttp.Builder builder =
          InboxHttp.builder(PostgresInboxManager.create(pool))
              .meterRegistry(prometheus)
              .readiness(readiness)
              .workers(List.of(worker))
              .credentials(credentials)
              .writeActions(writes);
      String hosts = env.get(InboxHttp.ALLOWED_HOSTS_ENV);
      if (hosts != null && !hosts.isBlank()) {
        // Unset: inbox-http's default (loopback names on a loopback address, any name otherwise).
        builder.allowedHosts(List.of(hosts.split(",")));
      }
      server = builder.build().start(HttpSettings.read(env).address());
    } catch (IOException | RuntimeException e) {
      pool.close();
      throw e;
    }
    log.accept(
        "health, metrics and console on http://"
            + server.address().getHostString()
            + ":"
            + server.address().getPort()
            + "/"
            + (writes ? " (write actions enabled)" : " (read-only)"));
    return new Running(server, pool);
  }

  /** The running server and its pool, or nothing; closing stops the server, then the pool. */
  public static final class Running implements AutoCloseable {
    private final InboxHttp.Running server;
    private final HikariDataSource pool;

    private Running(InboxHttp.Running server, HikariDataSource pool) {
      this.server = server;
      this.pool = pool;
    }

    @Override
    public void close() {
      try {
        if (server != null) {
          server.close();
        }
      } finally {
        if (pool != null) {
          pool.close();
        }
      }
    }
  }

  private static boolean flag(String value) {
    if (value == null || value.isBlank() || value.equalsIgnoreCase("false")) {
      return false;
    }
    if (value.equalsIgnoreCase("true")) {
      return true;
    }
    throw new ConfigException(WRITE_ACTIONS + " must be true or false");
  }
}
