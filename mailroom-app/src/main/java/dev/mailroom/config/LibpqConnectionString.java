package dev.mailroom.config;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * libpq's two connection string syntaxes, read into keyword/value pairs as libpq does: the
 * key/value form ({@code host=db port=5432 password='a \\'b'}) and the URI form ({@code
 * postgresql://user:pw@host1:5432,host2/db?sslmode=require}, percent-decoded). Errors use libpq's
 * wording, as {@link MalformedDatabaseUrlException}, and never quote text that may be part of a
 * password: in key/value form nothing after the {@code password} keyword, in a URI nothing at all
 * when it carries credentials (an unencoded {@code / ? & @} in a password moves the rest of it into
 * the host, port or query).
 */
final class LibpqConnectionString {

  /** libpq keywords this reader understands; any other keyword is an error, as in libpq. */
  static final Set<String> KEYWORDS =
      Set.of(
          "host",
          "hostaddr",
          "port",
          "dbname",
          "user",
          "password",
          "sslmode",
          "connect_timeout",
          "application_name",
          "options",
          "sslrootcert",
          "sslcert",
          "sslkey",
          "sslpassword",
          "target_session_attrs",
          "keepalives",
          "keepalives_idle",
          "keepalives_interval",
          "keepalives_count",
          "fallback_application_name",
          "client_encoding",
          "gssencmode",
          "channel_binding",
          "sslcompression",
          "sslsni",
          "tcp_user_timeout",
          "passfile",
          "krbsrvname",
          "gsslib",
          "requirepeer",
          "ssl_min_protocol_version",
          "ssl_max_protocol_version",
          "load_balance_hosts");

  private LibpqConnectionString() {}

  // ---- key/value conninfo ------------------------------------------------------------------

  static Map<String, String> parseConninfo(String s) {
    Map<String, String> params = new LinkedHashMap<>();
    boolean afterPassword = false;
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
        throw new MalformedDatabaseUrlException(
            afterPassword
                ? "missing \"=\" after a word that follows the password in connection info string"
                    + " (quote a password with spaces: password='a b')"
                : "missing \"=\" after \"" + key + "\" in connection info string");
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
          throw new MalformedDatabaseUrlException(
              "unterminated quoted string in connection info string");
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
      putKeyword(params, key, value.toString(), !afterPassword);
      afterPassword |= key.equals("password") || key.equals("sslpassword");
    }
  }

  // ---- postgres:// URI -----------------------------------------------------------------------

  static Map<String, String> parseUri(String uri) {
    Map<String, String> params = new LinkedHashMap<>();
    boolean echo = mayQuote(uri);
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
        putKeyword(params, "user", decode(userInfo.substring(0, colon), "user name", false), false);
        putKeyword(
            params, "password", decode(userInfo.substring(colon + 1), "password", false), false);
      } else if (!userInfo.isEmpty()) {
        putKeyword(params, "user", decode(userInfo, "user name", false), false);
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
            throw new MalformedDatabaseUrlException("missing \"]\" in IPv6 host address in URI");
          }
          host = hostPort.substring(1, close);
          String after = hostPort.substring(close + 1);
          if (after.startsWith(":")) {
            port = after.substring(1);
          } else if (!after.isEmpty()) {
            throw new MalformedDatabaseUrlException(
                echo
                    ? "unexpected \"" + after + "\" after the IPv6 host address in URI"
                    : "unexpected text after the IPv6 host address in URI" + ENCODE_HINT);
          }
        } else {
          int colon = hostPort.lastIndexOf(':');
          host = colon >= 0 ? hostPort.substring(0, colon) : hostPort;
          port = colon >= 0 ? hostPort.substring(colon + 1) : "";
        }
        hosts.add(decode(host, "host", echo));
        ports.add(decode(port, "port", echo));
      }
      putKeyword(params, "host", String.join(",", hosts), echo);
      if (ports.stream().anyMatch(p -> !p.isEmpty())) {
        putKeyword(params, "port", String.join(",", ports), echo);
      }
    }
    if (path != null && !path.isEmpty()) {
      putKeyword(params, "dbname", decode(path, "database name", echo), echo);
    }
    if (query != null && !query.isEmpty()) {
      for (String pair : query.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        if (eq < 0) {
          throw new MalformedDatabaseUrlException(
              echo
                  ? "missing key/value separator \"=\" in URI query parameter \"" + pair + "\""
                  : "missing key/value separator \"=\" in a URI query parameter" + ENCODE_HINT);
        }
        String key = decode(pair.substring(0, eq), "query parameter name", echo);
        boolean secret = key.equals("password") || key.equals("sslpassword");
        String value = decode(pair.substring(eq + 1), "query parameter " + key, echo && !secret);
        // libpq accepts ssl=true as an alias of sslmode=require (JDBC style).
        if (key.equals("ssl") && value.equals("true")) {
          putKeyword(params, "sslmode", "require", echo);
          continue;
        }
        putKeyword(params, key, value, echo);
      }
    }
    return params;
  }

  /** The hint for URIs whose parts are not quoted in errors. */
  static final String ENCODE_HINT =
      " (percent-encode / ? & @ : % in a user name or password, e.g. %2F for /)";

  /**
   * Whether errors may quote parts of this URI: only when it has no credentials, since a password's
   * unencoded characters can land anywhere in the parse.
   */
  static boolean mayQuote(String uri) {
    return uri.indexOf('@') < 0 && !uri.toLowerCase(java.util.Locale.ROOT).contains("password");
  }

  private static String decode(String s, String what, boolean echo) {
    // Percent-decoding only: a '+' is a plus sign in a libpq URI, not a space.
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new MalformedDatabaseUrlException(
          echo
              ? "invalid percent-encoded token in the " + what + " of the URI: \"" + s + "\""
              : "invalid percent-encoding in the " + what + " of the URI" + ENCODE_HINT);
    }
  }

  private static void putKeyword(
      Map<String, String> params, String key, String value, boolean echo) {
    if (!KEYWORDS.contains(key)) {
      throw new MalformedDatabaseUrlException(
          echo
              ? "invalid connection option \"" + key + "\""
              : "invalid connection option after the password" + ENCODE_HINT);
    }
    params.put(key, value);
  }
}
