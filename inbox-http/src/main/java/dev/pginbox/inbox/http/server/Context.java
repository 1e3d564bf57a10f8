package dev.pginbox.inbox.http.server;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** A path prefix with its handler and filters, as {@link HttpServer#createContext} makes them. */
final class Context extends HttpContext {

  private final String path;
  private final HttpServer server;
  private final Map<String, Object> attributes = new ConcurrentHashMap<>();
  private final List<Filter> filters = new CopyOnWriteArrayList<>();
  private volatile HttpHandler handler;

  Context(String path, HttpHandler handler, HttpServer server) {
    this.path = path;
    this.handler = handler;
    this.server = server;
  }

  @Override
  public HttpHandler getHandler() {
    return handler;
  }

  @Override
  public void setHandler(HttpHandler handler) {
    if (this.handler != null) {
      throw new IllegalArgumentException("the handler of " + path + " is set already");
    }
    this.handler = handler;
  }

  @Override
  public String getPath() {
    return path;
  }

  @Override
  public HttpServer getServer() {
    return server;
  }

  @Override
  public Map<String, Object> getAttributes() {
    return attributes;
  }

  @Override
  public List<Filter> getFilters() {
    return filters;
  }

  /** Authenticators are not run by this server: check credentials in a handler or a filter. */
  @Override
  public Authenticator setAuthenticator(Authenticator auth) {
    throw new UnsupportedOperationException(
        "BoundedHttpServer runs no Authenticator; use a Filter");
  }

  @Override
  public Authenticator getAuthenticator() {
    return null;
  }
}
