package dev.mailroom.delivery;

import dev.mailroom.config.ConfigException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * MAILROOM_SMTP_*: where and how to reach the SMTP server. The password is never printed.
 *
 * @param username null for no authentication
 */
public record SmtpSettings(
    String host, int port, String username, String password, Tls tls, String from) {

  public static final int DEFAULT_PORT = 587;

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
  }

  static SmtpSettings read(Map<String, String> env) {
    String host = DeliveryConfig.value(env, "MAILROOM_SMTP_HOST");
    if (host == null) {
      throw new ConfigException("MAILROOM_DELIVERY=smtp needs MAILROOM_SMTP_HOST");
    }
    String port = DeliveryConfig.value(env, "MAILROOM_SMTP_PORT");
    int portNumber;
    try {
      portNumber = port == null ? DEFAULT_PORT : Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new ConfigException("MAILROOM_SMTP_PORT must be a TCP port (1-65535), got: " + port);
    }
    String tls = DeliveryConfig.value(env, "MAILROOM_SMTP_TLS");
    Tls mode;
    try {
      mode = tls == null ? Tls.STARTTLS : Tls.valueOf(tls.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("MAILROOM_SMTP_TLS must be starttls, tls or none, got: " + tls);
    }
    String from = DeliveryConfig.value(env, DeliveryConfig.MAIL_FROM);
    return new SmtpSettings(
        host,
        portNumber,
        DeliveryConfig.value(env, "MAILROOM_SMTP_USERNAME"),
        DeliveryConfig.secret(env, "MAILROOM_SMTP_PASSWORD"),
        mode,
        from == null ? DeliveryConfig.DEFAULT_FROM : from);
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
        + (username == null ? "" : " user=" + username);
  }
}
