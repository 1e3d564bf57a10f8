package dev.mailroom.mailroom;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads MAILROOM_DATABASE_URL in the three forms people have: a libpq key/value conninfo
 * ({@code dbname=mailroom host=localhost port=5432 user=x password='a b' sslmode=disable}), a
 * libpq URI ({@code postgres://user:p%40ss@host:5432/db?sslmode=require}, several hosts allowed)
 * and a pgJDBC URL ({@code jdbc:postgresql://...}, passed through). Missing values fall back to
 * the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE) and then to
 * libpq's defaults, except the host: pgJDBC has no Unix-domain sockets, so the default (and a
 * socket directory) becomes localhost over TCP, with a warning for an explicit directory.
 */
public final class DatabaseUrl {

  /** libpq keywords this reader understands; any other keyword is an error, as in libpq. */
  private static final Set<String> KEYWORDS = Set.of("host", "hostaddr", "port", "dbname", "user", "password",
      "sslmode", "connect_timeout", "application_name", "options", "sslrootcert", "sslcert", "sslkey",
      "sslpassword", "target_session_attrs", "keepalives", "keepalives_idle", "keepalives_interval",
      "keepalives_count", "fallback_application_name", "client_encoding", "gssencmode", "channel_binding",
      "sslcompression", "sslsni", "tcp_user_timeout", "passfile", "krbsrvname", "gsslib", "requirepeer",
      "ssl_min_protocol_version", "ssl_max_protocol_version", "load_balance_hosts");

  private DatabaseUrl() {}

  /** Thrown for a URL that libpq itself would reject; the collector exits with code 2. */
  public static final class MalformedException extends IllegalArgumentException {
    public MalformedException(String message) {
      super(message);
    }
  }

  public static ConnectionSettings parse(String url, Map<String, String> env, Consumer<String> warn) {
    if (url == null || url.isBlank()) {
      throw new MalformedException("the database URL is empty");
    }
    String trimmed = url.strip();
    if (trimmed.startsWith("jdbc:postgresql:")) {
      return fromJdbc(trimmed, env);
    }
    Map<String, String> params;
    if (trimmed.startsWith("postgresql://") || trimmed.startsWith("postgres://")) {
      params = parseUri(trimmed);
    } else if (trimmed.contains("://")) {
      throw new MalformedException("unsupported URI scheme in " + redact(trimmed)
          + " (use postgres://, postgresql:// or jdbc:postgresql://)");
    } else {
      params = parseConninfo(trimmed);
    }
    return build(params, env, warn);
  }

  // ---- key/value conninfo ------------------------------------------------------------------

  static Map<String, String> parseConninfo(String s) {
    Map<String, String> params = new LinkedHashMap<>();
    int i = 0;
    int n = s.length();
    while (true) {
      while (i < n && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
      if (i >= n) {
        return params;
      }
      int keyStart = i;
      while (i < n && s.charAt(i) != '=' && !Character.isWhitespace(s.charAt(i))) {
        i++;
      }
      String key = s.substring(keyStart, i);
      while (i < n && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
      if (i >= n || s.charAt(i) != '=') {
        throw new MalformedException("missing \"=\" after \"" + key + "\" in connection info string");
      }
      i++;
      while (i < n && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
      StringBuilder value = new StringBuilder();
      if (i < n && s.charAt(i) == '\'') {
        i++;
        boolean closed = false;
        while (i < n) {
          char c = s.charAt(i++);
          if (c == '\\' && i < n) {
            value.append(s.charAt(i++));
          } else if (c == '\'') {
            closed = true;
            break;
          } else {
            value.append(c);
          }
        }
        if (!closed) {
          throw new MalformedException("unterminated quoted string in connection info string");
        }
      } else {
        while (i < n && !Character.isWhitespace(s.charAt(i))) {
          char c = s.charAt(i++);
          if (c == '\\' && i < n) {
            value.append(s.charAt(i++));
          } else {
            value.append(c);
          }
        }
      }
      putKeyword(params, key, value.toString());
    }
  }

  // ---- postgres:// URI -----------------------------------------------------------------------

  static Map<String, String> parseUri(String uri) {
    Map<String, String> params = new LinkedHashMap<>();
    String rest = uri.substring(uri.indexOf("://") + 3);
    String query = null;
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    String path = null;
    int slash = rest.indexOf('/');
    if (slash >= 0) {
      path = rest.substring(slash + 1);
      rest = rest.substring(0, slash);
    }
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = userInfo.indexOf(':');
      if (colon >= 0) {
        putKeyword(params, "user", decode(userInfo.substring(0, colon)));
        putKeyword(params, "password", decode(userInfo.substring(colon + 1)));
      } else if (!userInfo.isEmpty()) {
        putKeyword(params, "user", decode(userInfo));
      }
    }
    if (!rest.isEmpty()) {
      List<String> hosts = new ArrayList<>();
      List<String> ports = new ArrayList<>();
      for (String hostPort : rest.split(",", -1)) {
        String host;
        String port = "";
        if (hostPort.startsWith("[")) {
          int close = hostPort.indexOf(']');
          if (close < 0) {
            throw new MalformedException("missing \"]\" in IPv6 host address in URI");
          }
          host = hostPort.substring(1, close);
          String after = hostPort.substring(close + 1);
          if (after.startsWith(":")) {
            port = after.substring(1);
          } else if (!after.isEmpty()) {
            throw new MalformedException("unexpected \"" + after + "\" after the IPv6 host address in URI");
          }
        } else {
          int colon = hostPort.lastIndexOf(':');
          host = colon >= 0 ? hostPort.substring(0, colon) : hostPort;
          port = colon >= 0 ? hostPort.substring(colon + 1) : "";
        }
        hosts.add(decode(host));
        ports.add(decode(port));
      }
      putKeyword(params, "host", String.join(",", hosts));
      if (ports.stream().anyMatch(p -> !p.isEmpty())) {
        putKeyword(params, "port", String.join(",", ports));
      }
    }
    if (path != null && !path.isEmpty()) {
      putKeyword(params, "dbname", decode(path));
    }
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        if (eq < 0) {
          throw new MalformedException("missing key/value separator \"=\" in URI query parameter \"" + pair + "\"");
        }
        String key = decode(pair.substring(0, eq));
        // libpq accepts ssl=true as an alias of sslmode=require (JDBC style).
        if (key.equals("ssl") && decode(pair.substring(eq + 1)).equals("true")) {
          putKeyword(params, "sslmode", "require");
          continue;
        }
        putKeyword(params, key, decode(pair.substring(eq + 1)));
      }
    }
    return params;
  }

  private static String decode(String s) {
    // Percent-decoding only: a '+' is a plus sign in a libpq URI, not a space.
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new MalformedException("invalid percent-encoded token: \"" + s + "\"");
    }
  }

  private static void putKeyword(Map<String, String> params, String key, String value) {
    if (!KEYWORDS.contains(key)) {
      throw new MalformedException("invalid connection option \"" + key + "\"");
    }
    params.put(key, value);
  }

  // ---- to JDBC -------------------------------------------------------------------------------

  private static ConnectionSettings build(Map<String, String> params, Map<String, String> env, Consumer<String> warn) {
    String user = firstNonEmpty(params.get("user"), env.get("PGUSER"), env.get("USER"), "postgres");
    String password = firstNonEmpty(params.get("password"), env.get("PGPASSWORD"));
    String database = firstNonEmpty(params.get("dbname"), env.get("PGDATABASE"), user);
    String sslmode = firstNonEmpty(params.get("sslmode"), env.get("PGSSLMODE"), "prefer");
    if (!Set.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full").contains(sslmode)) {
      throw new MalformedException("invalid sslmode value: \"" + sslmode + "\"");
    }
    String hostSpec = firstNonEmpty(params.get("hostaddr"), params.get("host"), env.get("PGHOST"), "localhost");
    String portSpec = firstNonEmpty(params.get("port"), env.get("PGPORT"), "5432");
    List<String> hosts = new ArrayList<>();
    for (String host : hostSpec.split(",", -1)) {
      if (host.isEmpty()) {
        host = "localhost";
      } else if (host.startsWith("/") || host.startsWith("@")) {
        warn.accept("Unix-domain socket " + host + " is not supported; connecting to localhost over TCP");
        host = "localhost";
      }
      hosts.add(host);
    }
    String[] portParts = portSpec.split(",", -1);
    if (portParts.length != 1 && portParts.length != hosts.size()) {
      throw new MalformedException("could not match " + portParts.length + " port numbers to " + hosts.size() + " hosts");
    }
    List<Integer> ports = new ArrayList<>();
    for (int h = 0; h < hosts.size(); h++) {
      String p = portParts.length == 1 ? portParts[0] : portParts[h];
      ports.add(p.isEmpty() ? 5432 : port(p));
    }

    StringBuilder url = new StringBuilder("jdbc:postgresql://");
    for (int h = 0; h < hosts.size(); h++) {
      if (h > 0) {
        url.append(',');
      }
      String host = hosts.get(h);
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
      props.setProperty("ApplicationName", firstNonEmpty(params.get("fallback_application_name"), "mailroom"));
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
      props.setProperty("targetServerType", switch (attrs) {
        case "any" -> "any";
        case "read-write", "primary" -> "primary";
        case "read-only", "standby" -> "secondary";
        case "prefer-standby" -> "preferSecondary";
        default -> throw new MalformedException("invalid target_session_attrs value: \"" + attrs + "\"");
      });
    }
    return new ConnectionSettings(url.toString(), props, hosts, ports, database, user, sslmode);
  }

  private static void copy(Map<String, String> params, String key, Properties props, String property) {
    String value = params.get(key);
    if (value != null && !value.isEmpty() && property != null) {
      props.setProperty(property, value);
    }
  }

  private static int port(String p) {
    try {
      int port = Integer.parseInt(p.strip());
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return port;
    } catch (NumberFormatException e) {
      throw new MalformedException("invalid port number: \"" + p + "\"");
    }
  }

  private static ConnectionSettings fromJdbc(String url, Map<String, String> env) {
    Properties parsed = org.postgresql.Driver.parseURL(url, new Properties());
    if (parsed == null) {
      throw new MalformedException("invalid JDBC URL " + redact(url));
    }
    List<String> hosts = List.of(parsed.getProperty("PGHOST", "localhost").split(","));
    List<Integer> ports = new ArrayList<>();
    for (String p : parsed.getProperty("PGPORT", "5432").split(",")) {
      ports.add(port(p));
    }
    Properties props = new Properties();
    String user = firstNonEmpty(parsed.getProperty("user"), env.get("PGUSER"), env.get("USER"), "postgres");
    if (parsed.getProperty("user") == null) {
      props.setProperty("user", user);
    }
    if (parsed.getProperty("password") == null && env.get("PGPASSWORD") != null) {
      props.setProperty("password", env.get("PGPASSWORD"));
    }
    return new ConnectionSettings(url, props, hosts, ports, parsed.getProperty("PGDBNAME", user), user,
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

  /** The URL with any password masked, for error messages. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&\\s]*", "$1***").replaceAll("(://[^:/@]*:)[^@]*@", "$1***@");
  }
}
