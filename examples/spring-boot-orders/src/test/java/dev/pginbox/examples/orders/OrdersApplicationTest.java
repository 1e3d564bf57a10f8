package dev.pginbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.testing.TestDatabase;
import dev.pginbox.inbox.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrdersApplicationTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("orders_example");
  private static final ParameterizedTypeReference<Map<String, Object>> JSON =
      new ParameterizedTypeReference<>() {};

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }

  @LocalServerPort int port;

  private RestClient http() {
    return RestClient.create("http://localhost:" + port);
  }

  private HttpStatusCode post(String orderId, String sku, int quantity) {
    return http()
        .post()
        .uri("/orders")
        .contentType(MediaType.APPLICATION_JSON)
        .body(Map.of("orderId", orderId, "sku", sku, "quantity", quantity))
        .retrieve()
        .toBodilessEntity()
        .getStatusCode();
  }

  private int stock(String sku) {
    return ((Number) http().get().uri("/stock/" + sku).retrieve().body(JSON).get("quantity"))
        .intValue();
  }

  private Map<String, Object> get(String uri) {
    return http().get().uri(uri).retrieve().body(JSON);
  }

  @Test
  void an_order_posted_twice_takes_its_stock_once() {
    assertThat(post("order-1", "BOOK-1", 4).value()).isEqualTo(202);
    assertThat(post("order-1", "BOOK-1", 4).value()).isEqualTo(200); // the same event id

    await().atMost(Duration.ofSeconds(30)).until(() -> stock("BOOK-1") == 6);
  }

  @Test
  void an_order_for_an_unknown_article_is_a_dead_letter_that_the_endpoint_shows() {
    assertThat(post("order-2", "NO-SUCH-SKU", 1).value()).isEqualTo(202);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> http().get().uri("/actuator/inbox/orders/dlq").retrieve().body(String.class),
            body -> body.contains("order-2") && body.contains("unknown sku NO-SUCH-SKU"));
  }

  @Test
  void actuator_reports_the_inbox_and_the_workers() {
    Map<String, Object> inboxHealth = get("/actuator/health/inbox");
    Map<String, Object> readiness = get("/actuator/health/readiness");

    assertThat(inboxHealth).containsEntry("status", "UP");
    assertThat(inboxHealth.get("components").toString()).contains("orders");
    assertThat(readiness).containsEntry("status", "UP");
    assertThat(readiness.get("components").toString()).contains("inboxWorkers");
  }

  @Test
  void a_replay_while_write_operations_are_off_answers_405_naming_the_property() {
    // docs/spring-boot.md: POST /actuator/inbox/{name} with {"eventIds": ["e1"]}
    int[] status = new int[1];
    String body =
        http()
            .post()
            .uri("/actuator/inbox/orders")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"eventIds\": [\"e1\"]}")
            .exchange(
                (request, response) -> {
                  status[0] = response.getStatusCode().value();
                  return new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
                });

    assertThat(status[0]).isEqualTo(405);
    assertThat(body).contains("inbox.actuator.write-operations=true");
  }
}
