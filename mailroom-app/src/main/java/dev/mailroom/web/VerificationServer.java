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

  /** Failed attempts an address may make per window before it gets 429 answers. */
  public static final int MAX_FAILURES = 10;

  public static final Duration FAILURE_WINDOW = Duration.ofMinutes(1);
  private static final int MAX_TRACKED_ADDRESSES = 10_000;

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
    BoundedHttpServer server = BoundedHttpServer.create(address, LIMITS, "mailroom-http");
    FailedAttempts failures =
        new FailedAttempts(MAX_FAILURES, FAILURE_WINDOW, MAX_TRACKED_ADDRESSES, System::nanoTime);
    VerificationHandler handler = new VerificationHandler(verifier, failures, backLink);
    VerificationServer verification = new VerificationServer(server);
    verification.mount("/activate", handler);
    verification.mount("/recover", handler);
    server.start();
    return verification;
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
