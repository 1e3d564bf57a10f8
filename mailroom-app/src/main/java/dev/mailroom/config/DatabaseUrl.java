package dev.mailroom.config;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads MAILROOM_DATABASE_URL in the three forms people have: a libpq key/value conninfo ({@code
 * dbname=mailroom host=localhost port=5432 user=x password='a b' sslmode=disable}), a libpq URI
 * ({@code postgres://user:p%40ss@host:5432/db?sslmode=require}, several hosts allowed) and a pgJDBC
 * URL ({@code jdbc:postgresql://...}, passed through). Missing values fall back to the libpq
 * environment (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE) and then to libpq's
 * defaults. A host that is a directory (and no host at all: libpq's default socket directory) is a
 * Unix-domain socket, reached through {@link UnixSocket}.
 */
public final class DatabaseUrl {

  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]{0,30}");

  private DatabaseUrl() {}

  public static ConnectionSettings parse(String url, Map<String, String> env) {
    if (url == null || url.isBlank()) {
      throw new MalformedDatabaseUrlException("the database URL is empty");
    }
    String trimmed = url.strip();
    if (trimmed.startsWith("jdbc:postgresql:")) {
      return fromJdbc(trimmed, env);
    }
    Map<String, String> params;
    boolean quoteValues = true;
    if (trimmed.startsWith("postgresql://") || trimmed.startsWith("postgres://")) {
      params = LibpqConnectionString.parseUri(trimmed);
      quoteValues = LibpqConnectionString.mayQuote(trimmed);
    } else if (trimmed.contains("://")) {
      String scheme = trimmed.substring(0, trimmed.indexOf("://"));
      throw new MalformedDatabaseUrlException(
          "unsupported URI scheme"
              + (SCHEME.matcher(scheme).matches() ? " \"" + scheme + "://\"" : "")
              + " (use postgres://, postgresql:// or jdbc:postgresql://)");
    } else {
      params = LibpqConnectionString.parseConninfo(trimmed);
    }
    return build(params, env, quoteValues);
  }

  // ---- to JDBC -------------------------------------------------------------------------------

  /**
   * @param quoteValues whether errors may quote values: not for a URI with credentials, where a
   *     password's unencoded characters can end up in the port or the query
   */
  private static ConnectionSettings build(
      Map<String, String> params, Map<String, String> env, boolean quoteValues) {
    String user = firstNonEmpty(params.get("user"), env.get("PGUSER"), env.get("USER"), "postgres");
    String password = firstNonEmpty(params.get("password"), env.get("PGPASSWORD"));
    String database = firstNonEmpty(params.get("dbname"), env.get("PGDATABASE"), user);
    String sslmode = firstNonEmpty(params.get("sslmode"), env.get("PGSSLMODE"), "prefer");
    if (!Set.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
        .contains(sslmode)) {
      throw new MalformedDatabaseUrlException(
          quoteValues
              ? "invalid sslmode value: \"" + sslmode + "\""
              : "invalid sslmode value" + LibpqConnectionString.ENCODE_HINT);
    }
    String hostSpec =
        firstNonEmpty(
            params.get("hostaddr"),
            params.get("host"),
            env.get("PGHOST"),
            UnixSocket.DEFAULT_DIRECTORY);
    String portSpec = firstNonEmpty(params.get("port"), env.get("PGPORT"), "5432");
    List<String> hosts = new ArrayList<>();
    for (String host : hostSpec.split(",", -1)) {
      if (host.isEmpty()) {
        host = UnixSocket.DEFAULT_DIRECTORY;
      } else if (host.startsWith("@")) {
        throw new MalformedDatabaseUrlException(
            "abstract Unix-domain sockets (a host starting with @) are not supported; use the"
                + " socket's directory");
      }
      hosts.add(host);
    }
    if (hosts.size() > 1 && hosts.stream().anyMatch(UnixSocket::isDirectory)) {
      throw new MalformedDatabaseUrlException(
          "a Unix-domain socket directory cannot be one of several hosts; give it alone");
    }
    String[] portParts = portSpec.split(",", -1);
    if (portParts.length != 1 && portParts.length != hosts.size()) {
      throw new MalformedDatabaseUrlException(
          "could not match " + portParts.length + " port numbers to " + hosts.size() + " hosts");
    }
    List<Integer> ports = new ArrayList<>();
    for (int h = 0; h < hosts.size(); h++) {
      String p = portParts.length == 1 ? portParts[0] : portParts[h];
      ports.add(p.isEmpty() ? 5432 : port(p, quoteValues));
    }

    boolean socket = UnixSocket.isDirectory(hosts.get(0));
    StringBuilder url = new StringBuilder("jdbc:postgresql://");
    for (int h = 0; h < hosts.size(); h++) {
      if (h > 0) {
        url.append(',');
      }
      // Through a socket the URL's host is only a name (the socket factory ignores it).
      String host = socket ? "localhost" : hosts.get(h);
      url.append(host.contains(":") ? "[" + host + "]" : host).append(':').append(ports.get(h));
    }
    url.append('/').append(URLEncoder.encode(database, StandardCharsets.UTF_8));

    Properties props = new Properties();
    props.setProperty("user", user);
    if (password != null) {
      props.setProperty("password", password);
    }
    props.setProperty("sslmode", sslmode);
    copy(params, "connect_timeout", props, "connectTimeout");
    copy(params, "application_name", props, "ApplicationName");
    if (!props.containsKey("ApplicationName")) {
      props.setProperty(
          "ApplicationName", firstNonEmpty(params.get("fallback_application_name"), "mailroom"));
    }
    copy(params, "options", props, "options");
    copy(params, "sslrootcert", props, "sslrootcert");
    copy(params, "sslcert", props, "sslcert");
    copy(params, "sslkey", props, "sslkey");
    copy(params, "sslpassword", props, "sslpassword");
    copy(params, "tcp_user_timeout", props, null);
    if ("0".equals(params.get("keepalives"))) {
      props.setProperty("tcpKeepAlive", "false");
    } else {
      props.setProperty("tcpKeepAlive", "true");
    }
    String attrs = params.get("target_session_attrs");
    if (attrs != null) {
      props.setProperty(
          "targetServerType",
          switch (attrs) {
            case "any" -> "any";
            case "read-write", "primary" -> "primary";
            case "read-only", "standby" -> "secondary";
            case "prefer-standby" -> "preferSecondary";
            default ->
                throw new MalformedDatabaseUrlException(
                    quoteValues
                        ? "invalid target_session_attrs value: \"" + attrs + "\""
                        : "invalid target_session_attrs value" + LibpqConnectionString.ENCODE_HINT);
          });
    }
    if (socket) {
      UnixSocket.connectThrough(hosts.get(0), ports.get(0), props);
    }
    return new ConnectionSettings(
        url.toString(), props, hosts, ports, database, user, props.getProperty("sslmode"));
  }

  private static void copy(
      Map<String, String> params, String key, Properties props, String property) {
    String value = params.get(key);
    if (value != null && !value.isEmpty() && property != null) {
      props.setProperty(property, value);
    }
  }

  private static int port(String p, boolean quote) {
    try {
      int port = Integer.parseInt(p.strip());
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new MalformedDatabaseUrlException(
          quote
              ? "invalid port number: \"" + p + "\""
              : "invalid port number in the URI" + LibpqConnectionString.ENCODE_HINT);
    }
  }

  private static ConnectionSettings fromJdbc(String url, Map<String, String> env) {
    Properties parsed = org.postgresql.Driver.parseURL(url, new Properties());
    if (parsed == null) {
      // Not quoted: a JDBC URL may carry password=... in its query.
      throw new MalformedDatabaseUrlException(
          "invalid JDBC URL (expected jdbc:postgresql://host:port/database?user=...)");
    }
    List<String> hosts = List.of(parsed.getProperty("PGHOST", "localhost").split(","));
    if (hosts.stream().anyMatch(h -> h.contains("@"))) {
      // pgJDBC would take user:password@host for a host name, then print it in its errors.
      throw new MalformedDatabaseUrlException(
          "a JDBC URL takes the user and password as ?user=...&password=..., not as"
              + " user:password@host");
    }
    List<Integer> ports = new ArrayList<>();
    for (String p : parsed.getProperty("PGPORT", "5432").split(",")) {
      ports.add(port(p, false));
    }
    Properties props = new Properties();
    String user =
        firstNonEmpty(parsed.getProperty("user"), env.get("PGUSER"), env.get("USER"), "postgres");
    if (parsed.getProperty("user") == null) {
      props.setProperty("user", user);
    }
    if (parsed.getProperty("password") == null && env.get("PGPASSWORD") != null) {
      props.setProperty("password", env.get("PGPASSWORD"));
    }
    return new ConnectionSettings(
        url,
        props,
        hosts,
        ports,
        parsed.getProperty("PGDBNAME", user),
        user,
        firstNonEmpty(parsed.getProperty("sslmode"), "prefer"));
  }

  private static String firstNonEmpty(String... values) {
    for (String v : values) {
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return null;
  }
}
