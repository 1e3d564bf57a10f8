package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxNotFoundException;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a page and turns failures into answers: 400, 404, 403 with the missing grant when the
 * database refused for lack of a privilege, or 500 without internals.
 */
final class Route implements HttpHandler {

  private static final Logger LOG = LoggerFactory.getLogger(Route.class);

  interface Page {
    void handle(HttpExchange exchange) throws IOException;

    /** Answers a request the database refused for lack of a privilege (SQLSTATE 42501). */
    default void refused(HttpExchange exchange, InboxException e) throws IOException {
      Exchanges.send(
          exchange, MissingGrant.STATUS, "text/plain; charset=utf-8", e.getMessage() + "\n");
    }
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
    } catch (InboxException e) {
      if (MissingGrant.refused(e)) {
        LOG.warn("{} {} refused: {}", exchange.getRequestMethod(), path(exchange), e.getMessage());
        page.refused(exchange, e);
      } else {
        failed(exchange, e);
      }
    } catch (IOException | RuntimeException e) {
      failed(exchange, e);
    }
  }

  private static void failed(HttpExchange exchange, Exception e) throws IOException {
    LOG.warn("{} {} failed", exchange.getRequestMethod(), path(exchange), e);
    Exchanges.send(exchange, 500, "text/plain; charset=utf-8", "internal error; see the log\n");
  }

  private static String path(HttpExchange exchange) {
    return exchange.getRequestURI().getPath();
  }
}
