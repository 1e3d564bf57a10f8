package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpHandler;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The host names the server answers to. Binding to loopback keeps other machines out, but not a web
 * page in the operator's browser: with DNS rebinding, {@code evil.example} resolves to 127.0.0.1,
 * and the page reads the console as its own origin. The browser still sends {@code Host:
 * evil.example}, which this list refuses (421). An entry is a name (any port) or {@code name:port}.
 */
final class AllowedHosts {

  static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]");

  /** null: every host name. */
  private final Set<String> hosts;

  private AllowedHosts(Set<String> hosts) {
    this.hosts = hosts;
  }

  static AllowedHosts any() {
    return new AllowedHosts(null);
  }

  /** These names; none at all: every name. */
  static AllowedHosts of(Collection<String> hosts) {
    Set<String> names =
        hosts.stream()
            .map(h -> h.strip().toLowerCase(Locale.ROOT))
            .filter(h -> !h.isEmpty())
            .collect(Collectors.toUnmodifiableSet());
    return new AllowedHosts(names.isEmpty() ? null : names);
  }

  /** Whether a request with this {@code Host} header is answered (none: not from a browser). */
  boolean allows(String host) {
    if (hosts == null || host == null) {
      return true;
    }
    String h = host.strip().toLowerCase(Locale.ROOT);
    int portAt = h.startsWith("[") ? h.indexOf("]:") + 1 : h.lastIndexOf(':');
    String name = portAt > 0 ? h.substring(0, portAt) : h;
    return hosts.contains(name) || hosts.contains(h);
  }

  HttpHandler guard(HttpHandler handler) {
    if (hosts == null) {
      return handler;
    }
    return exchange -> {
      if (allows(exchange.getRequestHeaders().getFirst("Host"))) {
        handler.handle(exchange);
      } else {
        Exchanges.send(
            exchange,
            421,
            "text/plain; charset=utf-8",
            "this server does not answer to that host name\n");
      }
    };
  }
}
