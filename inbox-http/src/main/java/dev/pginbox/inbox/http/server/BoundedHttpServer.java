package dev.pginbox.inbox.http.server;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link HttpServer} that clients cannot stall: requests are read by one non-blocking thread,
 * within {@link HttpLimits} of time and size, and a handler runs only for a complete request.
 * Handlers written for the JDK's server run unchanged ({@code createContext}, filters, {@code
 * HttpExchange}); every answer closes its connection, and a handler's exchange ends when the
 * handler returns. Authenticators are not supported (check credentials in the handler).
 *
 * <p>Unlike the JDK's own server, whose limits are JVM-wide system properties read once, each
 * server has its own limits, so a library can harden its server without changing the application's.
 */
public final class BoundedHttpServer extends HttpServer {

  private static final Logger LOG = LoggerFactory.getLogger(BoundedHttpServer.class);

  private final ServerSocketChannel listener;
  private final HttpLimits limits;
  private final String name;
  private final Reactor reactor;
  private final Map<String, Context> contexts = new ConcurrentHashMap<>();
  private Executor executor;
  private ExecutorService ownExecutor;
  private Thread thread;

  private BoundedHttpServer(ServerSocketChannel listener, HttpLimits limits, String name)
      throws IOException {
    this.listener = listener;
    this.limits = limits;
    this.name = name;
    this.reactor = new Reactor(listener, limits, this::dispatch);
  }

  /**
   * A server bound to {@code address}, not started yet.
   *
   * @param name names its threads ({@code name}, {@code name-1}, ...)
   */
  public static BoundedHttpServer create(InetSocketAddress address, HttpLimits limits, String name)
      throws IOException {
    Objects.requireNonNull(limits, "limits");
    ServerSocketChannel listener = ServerSocketChannel.open();
    try {
      listener.bind(address, 128);
      return new BoundedHttpServer(listener, limits, name);
    } catch (IOException | RuntimeException e) {
      listener.close();
      throw e;
    }
  }

  public HttpLimits limits() {
    return limits;
  }

  @Override
  public void bind(InetSocketAddress address, int backlog) throws IOException {
    throw new BindException("a BoundedHttpServer is bound when it is created");
  }

  @Override
  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("started already");
    }
    if (executor == null) {
      AtomicInteger n = new AtomicInteger();
      ownExecutor =
          Executors.newFixedThreadPool(
              limits.threads(), task -> daemon(task, name + "-" + n.incrementAndGet()));
      executor = ownExecutor;
    }
    thread = daemon(reactor, name);
    thread.start();
  }

  private static Thread daemon(Runnable task, String name) {
    // Daemon threads: a server the application forgets to stop does not keep the JVM alive.
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public synchronized void setExecutor(Executor executor) {
    if (thread != null) {
      throw new IllegalStateException("the executor is set before start()");
    }
    this.executor = executor;
  }

  @Override
  public synchronized Executor getExecutor() {
    return executor;
  }

  /** Stops accepting, waits up to {@code delay} seconds for answers under way, closes the rest. */
  @Override
  public void stop(int delay) {
    reactor.stop();
    Thread t;
    synchronized (this) {
      t = thread;
    }
    try {
      if (t != null) {
        t.join();
      }
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(0, delay));
      while (!reactor.answering().isEmpty() && System.nanoTime() - until < 0) {
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    reactor.answering().forEach(Connection::close);
    if (ownExecutor != null) {
      ownExecutor.shutdownNow();
    }
  }

  @Override
  public HttpContext createContext(String path, HttpHandler handler) {
    if (path == null || !path.startsWith("/")) {
      throw new IllegalArgumentException("a context path starts with /");
    }
    Context context = new Context(path, handler, this);
    if (contexts.putIfAbsent(path, context) != null) {
      throw new IllegalArgumentException("a context for " + path + " exists already");
    }
    return context;
  }

  @Override
  public HttpContext createContext(String path) {
    return createContext(path, null);
  }

  @Override
  public void removeContext(String path) {
    if (contexts.remove(path) == null) {
      throw new IllegalArgumentException("no context for " + path);
    }
  }

  @Override
  public void removeContext(HttpContext context) {
    removeContext(context.getPath());
  }

  @Override
  public InetSocketAddress getAddress() {
    try {
      return (InetSocketAddress) listener.getLocalAddress();
    } catch (IOException e) {
      throw new IllegalStateException("the server is closed", e);
    }
  }

  private void dispatch(Connection connection, RequestHead request) {
    try {
      executor.execute(() -> serve(connection, request));
    } catch (RejectedExecutionException e) {
      reactor.answered(connection);
      connection.refuse(503, "the server is stopping");
    }
  }

  /** Like the JDK's server: the context whose path is the longest prefix of the request's. */
  private void serve(Connection connection, RequestHead request) {
    String path = request.uri().getPath();
    Context context = null;
    for (Context c : contexts.values()) {
      boolean longer = context == null || c.getPath().length() > context.getPath().length();
      if (path != null && path.startsWith(c.getPath()) && longer) {
        context = c;
      }
    }
    Exchange exchange = new Exchange(connection, request, context);
    try {
      if (context == null || context.getHandler() == null) {
        exchange.sendResponseHeaders(404, -1);
      } else {
        new Filter.Chain(context.getFilters(), context.getHandler()).doFilter(exchange);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("{} {} ended with an error", request.method(), path, e);
      if (!exchange.answered()) {
        try {
          exchange.sendResponseHeaders(500, -1);
        } catch (IOException | RuntimeException ignored) {
          // the connection is closed below all the same
        }
      }
    } finally {
      exchange.close();
      reactor.answered(connection);
    }
  }
}
