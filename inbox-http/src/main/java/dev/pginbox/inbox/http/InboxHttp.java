package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.http.server.BoundedHttpServer;
import dev.pginbox.inbox.http.server.HttpLimits;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Health, Prometheus metrics, a JSON operator API and a web console for the inboxes of one
 * database, on the JDK's built-in HTTP server ({@code com.sun.net.httpserver}). Mount it on a
 * server the application already runs ({@link #mount}) or start one ({@link #start}):
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = InboxHttp.prometheusRegistry();
 * // build the workers with .meterRegistry(registry) and .listener(readiness.track("orders"))
 * InboxHttp http = InboxHttp.builder(manager).meterRegistry(registry).readiness(readiness)
 *     .workers(List.of(worker)).credentials(Credentials.fromEnvironment(System.getenv()))
 *     .writeActions(true).build();
 * try (InboxHttp.Running server = http.start(new InetSocketAddress("127.0.0.1", 8080))) { ... }
 * }</pre>
 *
 * Paths: {@code /health/live}, {@code /health/ready}, {@code /metrics}, {@code /api/...} (JSON,
 * read-only) and the console at {@code /}. The console is read-only unless write actions are
 * enabled and credentials are configured; every write goes through the audited SQL API.
 */
public final class InboxHttp {

  /** Host names the console answers to, separated by commas (see {@link Builder#allowedHosts}). */
  public static final String ALLOWED_HOSTS_ENV = "INBOX_HTTP_ALLOWED_HOSTS";

  private final Builder b;
  private final Auth auth;
  private final LoginThrottle throttle;

  private InboxHttp(Builder b) {
    this.b = b;
    this.auth = new Auth(b.credentials);
    Set<String> names = new HashSet<>(b.credentials.users().keySet());
    if (b.credentials.token() != null) {
      names.add(b.credentials.tokenName());
    }
    this.throttle = new LoginThrottle(names, System::nanoTime);
  }

  public static Builder builder(InboxManager manager) {
    return new Builder(manager);
  }

  /** A Prometheus registry to give the workers and this server. */
  public static PrometheusMeterRegistry prometheusRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /**
   * Adds this module's paths to {@code server}; other handlers of the server stay as they are. The
   * server's own limits apply: the JDK's {@code HttpServer.create} gives a server that a few
   * clients which never finish a request can stall; {@link BoundedHttpServer} cannot be.
   */
  public void mount(HttpServer server) {
    handlers().forEach(server::createContext);
  }

  /**
   * This module's handlers by path prefix, for servers wrapped by the application (mount each with
   * {@code HttpServer.createContext(path, handler)}). {@code "/"} is the console: mount it only
   * when nothing else of the application answers there.
   */
  public Map<String, HttpHandler> handlers() {
    return handlers(b.allowedHosts == null ? AllowedHosts.any() : AllowedHosts.of(b.allowedHosts));
  }

  private Map<String, HttpHandler> handlers(AllowedHosts hosts) {
    Map<String, HttpHandler> handlers = new LinkedHashMap<>();
    handlers.put("/health/", new Route(new Health(b.manager, b.workers, b.readiness)));
    handlers.put(
        "/metrics",
        new Route(new Metrics(b.registry, new InboxGauges(b.manager, b.registry, b.gaugeMaxAge))));
    handlers.put("/api/", new Route(new Api(b.manager)));
    if (b.console) {
      handlers.put("/assets/", new Route(new Assets()));
      boolean writes = b.writeActions && auth.enabled();
      handlers.put("/", new Route(new Console(b.manager, auth, throttle, writes)));
    }
    handlers.replaceAll((path, handler) -> hosts.guard(handler));
    return handlers;
  }

  /**
   * Starts a server of its own on {@code address} with this module mounted: a {@link
   * BoundedHttpServer} with the builder's {@link HttpLimits}, so that clients which never finish a
   * request cannot keep health checks, metrics or the console from answering.
   */
  public Running start(InetSocketAddress address) throws IOException {
    BoundedHttpServer server = BoundedHttpServer.create(address, b.limits, "inbox-http");
    AllowedHosts hosts =
        b.allowedHosts != null
            ? AllowedHosts.of(b.allowedHosts)
            : server.getAddress().getAddress().isLoopbackAddress()
                ? AllowedHosts.of(AllowedHosts.LOOPBACK)
                : AllowedHosts.any();
    handlers(hosts).forEach(server::createContext);
    server.start();
    return new Running(server);
  }

  /** A server started by {@link #start}; closing it stops it. */
  public static final class Running implements AutoCloseable {
    private final HttpServer server;

    private Running(HttpServer server) {
      this.server = server;
    }

    public InetSocketAddress address() {
      return server.getAddress();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  public static final class Builder {
    private final InboxManager manager;
    private PrometheusMeterRegistry registry;
    private final List<InboxWorker> workers = new ArrayList<>();
    private Readiness readiness = new Readiness();
    private Credentials credentials = Credentials.none();
    private boolean writeActions;
    private boolean console = true;
    private Duration gaugeMaxAge = Duration.ofSeconds(10);
    private HttpLimits limits = HttpLimits.DEFAULTS;
    private List<String> allowedHosts;

    private Builder(InboxManager manager) {
      this.manager = Objects.requireNonNull(manager, "manager");
    }

    /** The registry {@code /metrics} scrapes (give the same one to the workers). */
    public Builder meterRegistry(PrometheusMeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Workers whose threads {@code /health/live} and {@code /health/ready} check. */
    public Builder workers(List<? extends InboxWorker> workers) {
      this.workers.addAll(workers);
      return this;
    }

    /** Connection state of the workers (see {@link Readiness#track}). */
    public Builder readiness(Readiness readiness) {
      this.readiness = Objects.requireNonNull(readiness, "readiness");
      return this;
    }

    public Builder credentials(Credentials credentials) {
      this.credentials = Objects.requireNonNull(credentials, "credentials");
      return this;
    }

    /** Shows and accepts the console's replay, discard and purge actions (needs credentials). */
    public Builder writeActions(boolean enabled) {
      this.writeActions = enabled;
      return this;
    }

    /** Serves the web console at {@code /} (default true). */
    public Builder console(boolean enabled) {
      this.console = enabled;
      return this;
    }

    /** How old the per-inbox gauges may be when {@code /metrics} is scraped (default 10 s). */
    public Builder gaugeMaxAge(Duration maxAge) {
      this.gaugeMaxAge = Objects.requireNonNull(maxAge, "maxAge");
      return this;
    }

    /** The limits of the server {@link #start} runs (default {@link HttpLimits#DEFAULTS}). */
    public Builder limits(HttpLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * The host names ({@code name} or {@code name:port}) requests may carry in {@code Host}; others
     * get 421. Default: {@code localhost}, {@code 127.0.0.1} and {@code [::1]} for a server {@link
     * #start}ed on a loopback address (DNS rebinding would otherwise let any web page the operator
     * opens read the console), every name otherwise. An empty list allows every name.
     */
    public Builder allowedHosts(Collection<String> hosts) {
      this.allowedHosts = List.copyOf(hosts);
      return this;
    }

    public InboxHttp build() {
      if (writeActions && !credentials.any()) {
        throw new IllegalStateException(
            "write actions need credentials (a token or users); none are configured");
      }
      if (registry == null) {
        registry = prometheusRegistry();
      }
      return new InboxHttp(this);
    }
  }
}
