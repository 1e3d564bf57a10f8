package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a page and turns failures into answers: 400, 404, or 500 without internals. */
final class Route implements HttpHandler {

  private static final Logger LOG = LoggerFactory.getLogger(Route.class);

  interface Page {
    void handle(HttpExchange exchange) throws IOException;
  }

  private final Page page;

  Route(Page page) {
    this.page = page;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      page.handle(exchange);
    } catch (Exchanges.BadRequest | InvalidInboxArgumentException e) {
      Exchanges.send(exchange, 400, "text/plain; charset=utf-8", e.getMessage() + "\n");
    } catch (InboxNotFoundException e) {
      Exchanges.send(exchange, 404, "text/plain; charset=utf-8", e.getMessage() + "\n");
    } catch (IOException | RuntimeException e) {
      LOG.warn("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e);
      Exchanges.send(exchange, 500, "text/plain; charset=utf-8", "internal error; see the log\n");
    }
  }
}
