package dev.mailroom.ops;

import dev.mailroom.config.ConfigException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.http.Credentials;
import dev.pginbox.inbox.http.InboxHttp;
import dev.pginbox.inbox.http.Readiness;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The collector's health, metrics and operator console (module inbox-http), switched on by {@code
 * MAILROOM_HTTP_PORT}. It listens on {@code MAILROOM_HTTP_BIND} (default 127.0.0.1: the console
 * shows token payloads). Write actions need {@code MAILROOM_HTTP_WRITE_ACTIONS=true} and
 * credentials ({@code INBOX_HTTP_USERS}, {@code INBOX_HTTP_USERS_FILE} or {@code
 * INBOX_HTTP_TOKEN}).
 */
public final class OperatorHttp {

  public static final String PORT = "MAILROOM_HTTP_PORT";
  public static final String BIND = "MAILROOM_HTTP_BIND";
  public static final String WRITE_ACTIONS = "MAILROOM_HTTP_WRITE_ACTIONS";

  private OperatorHttp() {}

  /** Whether {@code MAILROOM_HTTP_PORT} asks for the server. */
  public static boolean enabled(Map<String, String> env) {
    String port = env.get(PORT);
    return port != null && !port.isBlank();
  }

  /** Builds (and checks) the module from the environment; nothing listens yet. */
  public static InboxHttp configure(
      Map<String, String> env,
      DataSource dataSource,
      InboxWorker worker,
      Readiness readiness,
      PrometheusMeterRegistry registry) {
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
    return InboxHttp.builder(PostgresInboxManager.create(dataSource))
        .meterRegistry(registry)
        .readiness(readiness)
        .workers(List.of(worker))
        .credentials(credentials)
        .writeActions(writes)
        .build();
  }

  /** Starts the configured module on MAILROOM_HTTP_BIND:MAILROOM_HTTP_PORT. */
  public static InboxHttp.Running start(Map<String, String> env, InboxHttp http)
      throws IOException {
    return http.start(new InetSocketAddress(env.getOrDefault(BIND, "127.0.0.1"), port(env)));
  }

  static int port(Map<String, String> env) {
    String raw = env.get(PORT).strip();
    try {
      int port = Integer.parseInt(raw);
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new ConfigException(PORT + " must be a port number 1..65535, got " + raw);
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
