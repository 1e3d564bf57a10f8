package dev.mailroom.web;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Reading parameters from and writing answers to a {@link HttpExchange}, with bounded input. */
final class HttpExchanges {

  static final int MAX_BODY_BYTES = 4096;

  /** A request body over {@value #MAX_BODY_BYTES} bytes. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body over " + MAX_BODY_BYTES + " bytes");
    }
  }

  private HttpExchanges() {}

  /** The query's parameters, then (for a POST) the form body's, which win. */
  static Map<String, String> parameters(HttpExchange exchange) throws IOException {
    Map<String, String> params = new HashMap<>();
    parse(exchange.getRequestURI().getRawQuery(), params);
    if ("POST".equals(exchange.getRequestMethod())) {
      parse(readBody(exchange.getRequestBody()), params);
    }
    return params;
  }

  private static String readBody(InputStream in) throws IOException {
    byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      throw new TooLarge();
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void parse(String text, Map<String, String> into) {
    if (text == null || text.isEmpty()) {
      return;
    }
    for (String pair : text.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        into.put(
            URLDecoder.decode(name, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // A malformed escape: the parameter is left out and the request fails as malformed.
      }
    }
  }

  static boolean wantsJson(HttpExchange exchange) {
    String accept = exchange.getRequestHeaders().getFirst("Accept");
    return accept != null && accept.contains("application/json");
  }

  static void send(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType + "; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
