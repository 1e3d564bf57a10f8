package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The console's stylesheet and script, packaged in the jar. */
final class Assets implements Route.Page {

  private static final Map<String, String> TYPES =
      Map.of(
          "console.css", "text/css; charset=utf-8",
          "console.js", "text/javascript; charset=utf-8");

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String name = exchange.getRequestURI().getPath().substring("/assets/".length());
    String type = TYPES.get(name);
    if (type == null) {
      Exchanges.send(exchange, 404, "text/plain; charset=utf-8", "not found\n");
      return;
    }
    try (InputStream in = Assets.class.getResourceAsStream("assets/" + name)) {
      if (in == null) {
        throw new IOException("asset " + name + " is missing from the jar");
      }
      Exchanges.send(exchange, 200, type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
