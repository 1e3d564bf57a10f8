package dev.pginbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * docs/spring-boot.md, "Metrics and traces", with the OpenTelemetry bridge the example ships: the
 * handler's span belongs to the trace of the HTTP request that sent the message.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"management.server.port=0", "example.operator.password=tracing-test-password"})
class TracingTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("orders_tracing");

  /** A trace the caller started: W3C traceparent version 00, sampled. */
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }

  /** Spans stay in memory instead of going to an OTLP collector. */
  @TestConfiguration
  static class Spans {
    @Bean
    InMemorySpanExporter spanExporter() {
      return InMemorySpanExporter.create();
    }
  }

  @LocalServerPort int port;
  @Autowired InMemorySpanExporter spans;

  @Test
  void the_handlers_span_continues_the_trace_of_the_request_that_sent_the_order() {
    int status =
        RestClient.create("http://localhost:" + port)
            .post()
            .uri("/orders")
            .header("traceparent", "00-" + TRACE_ID + "-00f067aa0ba902b7-01")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("orderId", "order-traced", "sku", "BOOK-1", "quantity", 1))
            .retrieve()
            .toBodilessEntity()
            .getStatusCode()
            .value();
    assertThat(status).isEqualTo(202);

    SpanData handled =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    spans.getFinishedSpanItems().stream()
                        .filter(s -> s.getName().equals("orders process"))
                        .findFirst()
                        .orElse(null),
                s -> s != null);

    assertThat(handled.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(handled.getAttributes().asMap().toString()).contains("order-traced");
  }
}
