package dev.pginbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * The example as its users run it: orders on the application's port, the Actuator on the management
 * port, its write operations for the operator only.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "management.server.port=0",
      "example.operator.password=" + OrdersApplicationTest.OPERATOR_PASSWORD
    })
class OrdersApplicationTest {

  static final String OPERATOR_PASSWORD = "operator-test-password";

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
  @LocalManagementPort int managementPort;
  @Autowired InMemoryUserDetailsManager users;
  @Autowired InboxManager manager;

  record Answer(int status, String body) {}

  /** A user who may log in but is no operator. */
  @BeforeEach
  void aViewer() {
    if (!users.userExists("viewer")) {
      users.createUser(
          User.withUsername("viewer").password("{noop}viewer-password").roles("VIEWER").build());
    }
  }

  private RestClient http() {
    return RestClient.create("http://localhost:" + port);
  }

  private RestClient management() {
    return RestClient.create("http://127.0.0.1:" + managementPort);
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

  private Map<String, Object> health(String uri) {
    return management().get().uri(uri).retrieve().body(JSON);
  }

  private String asOperator(String uri) {
    return management()
        .get()
        .uri(uri)
        .headers(h -> h.setBasicAuth("operator", OPERATOR_PASSWORD))
        .retrieve()
        .body(String.class);
  }

  /** docs/spring-boot.md: POST /actuator/inbox/{name} with {"eventIds": ["e1"]}. */
  private Answer replay(String eventId, String user, String password) {
    RestClient.RequestBodySpec request =
        management()
            .post()
            .uri("/actuator/inbox/orders")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"eventIds\": [\"" + eventId + "\"]}");
    if (user != null) {
      request.headers(h -> h.setBasicAuth(user, password));
    }
    return request.exchange(
        (req, res) ->
            new Answer(
                res.getStatusCode().value(),
                new String(res.getBody().readAllBytes(), StandardCharsets.UTF_8)));
  }

  private void deadLetter(String orderId, String sku) {
    assertThat(post(orderId, sku, 1).value()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> asOperator("/actuator/inbox/orders/dlq"),
            body -> body.contains(orderId) && body.contains("unknown sku " + sku));
  }

  @Test
  void an_order_posted_twice_takes_its_stock_once() {
    assertThat(post("order-1", "BOOK-1", 4).value()).isEqualTo(202);
    assertThat(post("order-1", "BOOK-1", 4).value()).isEqualTo(200); // the same event id

    await().atMost(Duration.ofSeconds(30)).until(() -> stock("BOOK-1") == 6);
  }

  @Test
  void an_order_for_an_unknown_article_is_a_dead_letter_that_the_endpoint_shows() {
    deadLetter("order-2", "NO-SUCH-SKU");
  }

  @Test
  void health_is_open_and_reports_the_inbox_and_the_workers() {
    Map<String, Object> inboxHealth = health("/actuator/health/inbox");
    Map<String, Object> readiness = health("/actuator/health/readiness");

    assertThat(inboxHealth).containsEntry("status", "UP");
    assertThat(inboxHealth.get("components").toString()).contains("orders");
    assertThat(readiness).containsEntry("status", "UP");
    assertThat(readiness.get("components").toString()).contains("inboxWorkers");
  }

  @Test
  void a_replay_without_credentials_answers_401() {
    assertThat(replay("order-x", null, null).status()).isEqualTo(401);
  }

  @Test
  void a_replay_by_a_user_who_is_no_operator_answers_403() {
    assertThat(replay("order-x", "viewer", "viewer-password").status()).isEqualTo(403);
  }

  @Test
  void reads_of_the_inbox_endpoint_need_the_operator_too() {
    int status =
        management()
            .get()
            .uri("/actuator/inbox/orders/dlq")
            .exchange((req, res) -> res.getStatusCode().value());

    assertThat(status).isEqualTo(401);
  }

  @Test
  void the_operator_replays_and_the_audit_log_names_the_operator() {
    deadLetter("order-3", "NO-SUCH-SKU-3");

    Answer answer = replay("order-3", "operator", OPERATOR_PASSWORD);

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).contains("\"replayed\":1");
    OperatorLogEntry replay =
        manager.inbox("orders").operations().auditLog(20, null).stream()
            .filter(entry -> entry.action().equals("replay"))
            .findFirst()
            .orElseThrow();
    assertThat(replay.actor()).isEqualTo("operator");
  }

  @Test
  void the_actuator_is_not_served_on_the_application_port() {
    int status =
        http().get().uri("/actuator/health").exchange((req, res) -> res.getStatusCode().value());

    assertThat(status).isNotEqualTo(200);
  }
}
