package dev.pginbox.inbox.http;

import com.sun.net.httpserver.HttpExchange;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;

/** {@code /metrics}: the registry in Prometheus text format, per-inbox gauges refreshed first. */
final class Metrics implements Route.Page {

  private final PrometheusMeterRegistry registry;
  private final InboxGauges gauges;

  Metrics(PrometheusMeterRegistry registry, InboxGauges gauges) {
    this.registry = registry;
    this.gauges = gauges;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    gauges.refreshIfOlderThanMaxAge();
    Exchanges.send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
  }
}
