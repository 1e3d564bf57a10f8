package dev.mailroom.web;

import com.sun.net.httpserver.HttpHandler;
import dev.mailroom.verify.TokenVerifier;
import dev.pginbox.inbox.http.server.BoundedHttpServer;
import dev.pginbox.inbox.http.server.FailedAttempts;
import dev.pginbox.inbox.http.server.HttpLimits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The {@code serve} HTTP server: {@code /activate} and {@code /recover}, plus whatever else is
 * mounted on it (the demo's mailbox). It runs on inbox-http's {@link BoundedHttpServer}, which the
 * JDK's handlers run on unchanged and which clients that never finish a request cannot stall.
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

  /** The defaults, with bodies as small as the forms: a token and a code. */
  public static final HttpLimits LIMITS =
      HttpLimits.builder().maxBodyBytes(HttpExchanges.MAX_BODY_BYTES).build();

  private final BoundedHttpServer server;

  private VerificationServer(BoundedHttpServer server) {
    this.server = server;
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
    BoundedHttpServer server = BoundedHttpServer.create(address, LIMITS, "mailroom-http");
    AttemptLimits limits = new AttemptLimits(failedAttempts(), failedAttempts());
    VerificationHandler handler = new VerificationHandler(verifier, limits, proxies, backLink);
    VerificationServer verification = new VerificationServer(server);
    verification.mount("/activate", handler);
    verification.mount("/recover", handler);
    server.start();
    return verification;
  }

  private static FailedAttempts failedAttempts() {
    return new FailedAttempts(MAX_FAILURES, FAILURE_WINDOW, MAX_TRACKED, System::nanoTime);
  }

  /** Adds a handler next to the verification endpoints; its answers get {@link PageSecurity}. */
  public void mount(String path, HttpHandler handler) {
    server.createContext(path, handler).getFilters().add(new PageSecurity());
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(1);
  }
}
