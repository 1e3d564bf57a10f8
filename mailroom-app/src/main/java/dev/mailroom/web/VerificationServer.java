package dev.mailroom.web;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.mailroom.verify.TokenVerifier;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The {@code serve} HTTP server on the JDK's built-in server (no extra dependency): {@code
 * /activate} and {@code /recover}, plus whatever else is mounted on it (the demo's mailbox, an
 * operator console).
 */
public final class VerificationServer implements AutoCloseable {

  public static final int DEFAULT_PORT = 8080;

  /**
   * Failed attempts a client, and a token, may see per window before requests from that client or
   * with that token get 429 answers.
   */
  public static final int MAX_FAILURES = 10;

  public static final Duration FAILURE_WINDOW = Duration.ofMinutes(1);

  /** Clients, and tokens, remembered at most (each): a few MiB whatever the traffic. */
  private static final int MAX_TRACKED = 10_000;

  private static final int THREADS = 4;

  private final HttpServer server;
  private final ExecutorService executor;

  private VerificationServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * @param backLink HTML under every answer page ("" for none)
   */
  public static VerificationServer start(
      InetSocketAddress address, TokenVerifier verifier, String backLink) throws IOException {
    return start(address, verifier, backLink, TrustedProxies.none());
  }

  /**
   * @param backLink HTML under every answer page ("" for none)
   * @param proxies the reverse proxies whose {@code X-Forwarded-For} names the client
   */
  public static VerificationServer start(
      InetSocketAddress address, TokenVerifier verifier, String backLink, TrustedProxies proxies)
      throws IOException {
    HttpServer server = HttpServer.create(address, 64);
    AttemptLimits limits = new AttemptLimits(failedAttempts(), failedAttempts());
    VerificationHandler handler = new VerificationHandler(verifier, limits, proxies, backLink);
    server.createContext("/activate", handler);
    server.createContext("/recover", handler);
    ExecutorService executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "mailroom-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.start();
    return new VerificationServer(server, executor);
  }

  private static FailedAttempts failedAttempts() {
    return new FailedAttempts(
        MAX_FAILURES, FAILURE_WINDOW.toNanos(), MAX_TRACKED, System::nanoTime);
  }

  /** Adds a handler next to the verification endpoints. */
  public void mount(String path, HttpHandler handler) {
    server.createContext(path, handler);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
  }
}
