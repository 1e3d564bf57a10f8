package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * MAILROOM_SMTP_*: where and how to reach the SMTP server. The password is never printed.
 *
 * @param username null for no authentication
 * @param connections how many connections one batch's emails are spread over, in parallel
 */
public record SmtpSettings(
    String host,
    int port,
    String username,
    String password,
    Tls tls,
    String from,
    int connections) {

  /** The sender's address; {@link #DEFAULT_FROM} when unset. */
  public static final String MAIL_FROM = "MAILROOM_MAIL_FROM";

  public static final String DEFAULT_FROM = "noreply@localhost";

  public static final int DEFAULT_PORT = 587;

  /** Enough to keep a local relay busy while each connection waits for its replies. */
  public static final int DEFAULT_CONNECTIONS = 4;

  /** Well under the per-client connection limits of common servers (Postfix: 50). */
  public static final int MAX_CONNECTIONS = 16;

  static final String CONNECTIONS = "MAILROOM_SMTP_CONNECTIONS";

  /**
   * {@code starttls} (default: upgrade a plain connection, required), {@code tls}, {@code none}.
   */
  public enum Tls {
    STARTTLS,
    TLS,
    NONE
  }

  public SmtpSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(from, "from");
    if (port < 1 || port > 65535) {
      throw new ConfigException("MAILROOM_SMTP_PORT must be a TCP port (1-65535), got: " + port);
    }
    if ((username == null) != (password == null)) {
      throw new ConfigException(
          "set both MAILROOM_SMTP_USERNAME and MAILROOM_SMTP_PASSWORD, or neither");
    }
    if (connections < 1 || connections > MAX_CONNECTIONS) {
      throw connectionsError(String.valueOf(connections));
    }
  }

  private static ConfigException connectionsError(String value) {
    return new ConfigException(
        CONNECTIONS + " must be a number from 1 to " + MAX_CONNECTIONS + ", got: " + value);
  }

  static SmtpSettings read(Map<String, String> env) {
    String host = EnvironmentVariables.value(env, "MAILROOM_SMTP_HOST");
    if (host == null) {
      throw new ConfigException("MAILROOM_DELIVERY=smtp needs MAILROOM_SMTP_HOST");
    }
    String port = EnvironmentVariables.value(env, "MAILROOM_SMTP_PORT");
    int portNumber;
    try {
      portNumber = port == null ? DEFAULT_PORT : Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new ConfigException("MAILROOM_SMTP_PORT must be a TCP port (1-65535), got: " + port);
    }
    String tls = EnvironmentVariables.value(env, "MAILROOM_SMTP_TLS");
    Tls mode;
    try {
      mode = tls == null ? Tls.STARTTLS : Tls.valueOf(tls.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("MAILROOM_SMTP_TLS must be starttls, tls or none, got: " + tls);
    }
    String from = EnvironmentVariables.value(env, MAIL_FROM);
    String connections = EnvironmentVariables.value(env, CONNECTIONS);
    int connectionCount;
    try {
      connectionCount = connections == null ? DEFAULT_CONNECTIONS : Integer.parseInt(connections);
    } catch (NumberFormatException e) {
      throw connectionsError(connections);
    }
    return new SmtpSettings(
        host,
        portNumber,
        EnvironmentVariables.value(env, "MAILROOM_SMTP_USERNAME"),
        EnvironmentVariables.secret(env, "MAILROOM_SMTP_PASSWORD"),
        mode,
        from == null ? DEFAULT_FROM : from,
        connectionCount);
  }

  @Override
  public String toString() {
    return "smtp="
        + host
        + ":"
        + port
        + " tls="
        + tls.name().toLowerCase(Locale.ROOT)
        + " from="
        + from
        + " connections="
        + connections
        + (username == null ? "" : " user=" + username);
  }
}
