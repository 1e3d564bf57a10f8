package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reading requests (query strings, bounded form bodies) and writing responses. */
final class Exchanges {

  /** Forms carry a selection of at most a page of ids: 256 kB is plenty. */
  static final int MAX_FORM_BYTES = 256 * 1024;

  private Exchanges() {}

  static Map<String, String> query(HttpExchange exchange) {
    return parse(exchange.getRequestURI().getRawQuery());
  }

  /** The urlencoded body; {@link BadRequest} when larger than {@link #MAX_FORM_BYTES}. */
  static Map<String, String> form(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_FORM_BYTES + 1);
      if (body.length > MAX_FORM_BYTES) {
        throw new BadRequest("request body larger than " + MAX_FORM_BYTES + " bytes");
      }
      return parse(new String(body, StandardCharsets.US_ASCII));
    }
  }

  /** Repeated keys are joined with newlines (a list of selected ids). */
  static Map<String, String> parse(String raw) {
    Map<String, String> values = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return values;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      values.merge(key, value, (a, b) -> a + "\n" + b);
    }
    return values;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("malformed URL encoding");
    }
  }

  static void send(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    var headers = exchange.getResponseHeaders();
    headers.set("Content-Type", contentType);
    headers.set("Cache-Control", "no-store");
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("X-Frame-Options", "DENY");
    headers.set("Referrer-Policy", "same-origin");
    headers.set(
        "Content-Security-Policy",
        "default-src 'self'; style-src 'self'; script-src 'self'; form-action 'self';"
            + " frame-ancestors 'none'");
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length == 0 ? -1 : bytes.length);
    if (!head && bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
    exchange.close();
  }

  static void redirect(HttpExchange exchange, String location) throws IOException {
    exchange.getResponseHeaders().set("Location", location);
    send(exchange, 303, "text/plain; charset=utf-8", "");
  }

  static int intParam(Map<String, String> params, String name, int fallback, int min, int max) {
    String raw = params.get(name);
    if (raw == null || raw.isBlank()) {
      return fallback;
    }
    try {
      int value = Integer.parseInt(raw.strip());
      if (value < min || value > max) {
        throw new BadRequest(name + " must be in " + min + ".." + max);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new BadRequest(name + " must be a number");
    }
  }

  /** A request the client got wrong: answered with 400 and the message. */
  static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }
}
