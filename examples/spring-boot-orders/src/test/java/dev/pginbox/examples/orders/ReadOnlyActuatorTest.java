package dev.pginbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/** With the inbox endpoint's writes off, a replay says which property turns them on. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "management.server.port=0",
      "inbox.actuator.write-operations=false",
      "example.operator.password=" + ReadOnlyActuatorTest.PASSWORD
    })
class ReadOnlyActuatorTest {

  static final String PASSWORD = "read-only-test-password";

  private static final TestDatabase DATABASE =
      TestPostgres.shared().newDatabase("orders_read_only");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }

  @LocalManagementPort int managementPort;

  @Test
  void a_replay_while_write_operations_are_off_answers_405_naming_the_property() {
    // docs/spring-boot.md: POST /actuator/inbox/{name} with {"eventIds": ["e1"]}
    int[] status = new int[1];
    String body =
        RestClient.create("http://127.0.0.1:" + managementPort)
            .post()
            .uri("/actuator/inbox/orders")
            .headers(h -> h.setBasicAuth("operator", PASSWORD))
            .header(HttpHeaders.ACCEPT, MediaType.APPLICATION_JSON_VALUE)
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
