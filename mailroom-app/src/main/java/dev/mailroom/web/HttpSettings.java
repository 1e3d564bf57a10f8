package dev.mailroom.web;

import dev.mailroom.config.ConfigException;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * MAILROOM_HTTP_HOST (default 127.0.0.1: put a reverse proxy in front, or set 0.0.0.0) and
 * MAILROOM_HTTP_PORT (default 8080).
 */
public record HttpSettings(String host, int port) {

  public static final String HOST = "MAILROOM_HTTP_HOST";
  public static final String PORT = "MAILROOM_HTTP_PORT";
  public static final String DEFAULT_HOST = "127.0.0.1";

  public HttpSettings {
    if (port < 0 || port > 65535) {
      throw new ConfigException(PORT + " must be a TCP port (0-65535), got: " + port);
    }
  }

  public static HttpSettings read(Map<String, String> env) {
    String host = env.getOrDefault(HOST, "").strip();
    String port = env.getOrDefault(PORT, "").strip();
    int number;
    try {
      number = port.isEmpty() ? VerificationServer.DEFAULT_PORT : Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new ConfigException(PORT + " must be a TCP port (0-65535), got: " + port);
    }
    return new HttpSettings(host.isEmpty() ? DEFAULT_HOST : host, number);
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(host, port);
  }
}
