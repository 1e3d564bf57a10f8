package dev.mailroom.config;

import java.util.List;
import java.util.Objects;
import java.util.Properties;

/**
 * Where to connect: a JDBC URL (hosts, ports, database) plus driver properties (user, password,
 * sslmode, ...), and what to print in the {@code connecting to ...} line (never the password).
 */
public record ConnectionSettings(
    String jdbcUrl,
    Properties properties,
    List<String> hosts,
    List<Integer> ports,
    String database,
    String user,
    String sslmode) {

  public ConnectionSettings {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Properties copy = new Properties();
    copy.putAll(properties);
    properties = copy;
    hosts = List.copyOf(hosts);
    ports = List.copyOf(ports);
  }

  @Override
  public Properties properties() {
    Properties copy = new Properties();
    copy.putAll(properties);
    return copy;
  }

  /**
   * The same place, connecting under another {@code application_name}: a part of the process that
   * should be told apart in {@code pg_stat_activity} and the audit log (the operator console).
   */
  public ConnectionSettings withApplicationName(String applicationName) {
    Properties named = properties();
    named.setProperty("ApplicationName", applicationName);
    return new ConnectionSettings(jdbcUrl, named, hosts, ports, database, user, sslmode);
  }

  /** The original's {@code host=... port=... dbname=... user=... sslmode=...}. */
  public String describe() {
    return "host="
        + String.join(",", hosts)
        + " port="
        + String.join(",", ports.stream().map(String::valueOf).toList())
        + " dbname="
        + database
        + " user="
        + user
        + " sslmode="
        + sslmode;
  }

  @Override
  public String toString() {
    return "ConnectionSettings[" + jdbcUrl + " " + describe() + "]";
  }
}
