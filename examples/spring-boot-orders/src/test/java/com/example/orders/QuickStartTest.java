package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.client.RestClient;

/**
 * docs/spring-boot.md's quick start as a new user runs it: its application class (verbatim in this
 * package), its properties (quickstart.properties), its table, then step 5's requests.
 */
class QuickStartTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("quick_start");
  private static ConfigurableApplicationContext application;
  private static RestClient http;

  @BeforeAll
  static void start() {
    new JdbcTemplate(DATABASE.dataSource())
        .execute(
            "CREATE TABLE IF NOT EXISTS taken (order_id text PRIMARY KEY, sku text NOT NULL,"
                + " quantity int NOT NULL)");
    application =
        SpringApplication.run(
            OrdersApplication.class,
            "--spring.config.name=quickstart",
            "--server.port=0",
            "--spring.datasource.url=" + DATABASE.jdbcUrl(),
            "--spring.datasource.username=" + DATABASE.user(),
            "--spring.datasource.password="
                + (DATABASE.password() == null ? "" : DATABASE.password()),
            // The quick start has no Spring Security; this module has it for the example.
            "--spring.autoconfigure.exclude="
                + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.web.servlet"
                + ".ServletWebSecurityAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.actuate.web.servlet"
                + ".ManagementWebSecurityAutoConfiguration");
    int port = ((WebServerApplicationContext) application).getWebServer().getPort();
    http = RestClient.create("http://localhost:" + port);
  }

  @AfterAll
  static void stop() {
    application.close();
  }

  private String postOrder(String orderId) {
    return http.post()
        .uri("/orders")
        .contentType(MediaType.APPLICATION_JSON)
        .body(Map.of("orderId", orderId, "sku", "MUG-1", "quantity", 2))
        .retrieve()
        .body(String.class);
  }

  @Test
  void an_order_is_accepted_once_and_taken_by_the_listener() {
    assertThat(postOrder("o-1")).isEqualTo("accepted");
    assertThat(postOrder("o-1")).isEqualTo("duplicate");

    JdbcTemplate jdbc = application.getBean(JdbcTemplate.class);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> jdbc.queryForObject("SELECT count(*) FROM taken", Integer.class) == 1);
    assertThat(
            jdbc.queryForObject("SELECT quantity FROM taken WHERE order_id = 'o-1'", Integer.class))
        .isEqualTo(2);
  }

  @Test
  void the_actuator_answers_as_step_5_shows() {
    Map<?, ?> health = http.get().uri("/actuator/health/inbox").retrieve().body(Map.class);
    String inbox = http.get().uri("/actuator/inbox/orders").retrieve().body(String.class);

    assertThat(health.get("status")).isEqualTo("UP");
    assertThat(((Map<?, ?>) health.get("components")).keySet())
        .extracting(Object::toString)
        .contains("orders");
    assertThat(inbox).contains("\"health\":{").contains("\"status\":{").contains("\"worker\":{");
  }
}
