package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The decoded segments of a request path below a prefix; URL builders for the pages. */
final class Paths {

  private Paths() {}

  static List<String> segments(HttpExchange exchange, String prefix) {
    String raw = exchange.getRequestURI().getRawPath();
    if (!raw.startsWith(prefix)) {
      return List.of();
    }
    List<String> segments = new ArrayList<>();
    for (String s : raw.substring(prefix.length()).split("/")) {
      if (!s.isEmpty()) {
        try {
          segments.add(URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          throw new Exchanges.BadRequest("malformed path");
        }
      }
    }
    return segments;
  }

  /** A path segment or query value, encoded. */
  static String enc(String value) {
    return java.net.URLEncoder.encode(value == null ? "" : value, StandardCharsets.UTF_8)
        .replace("+", "%20");
  }
}
