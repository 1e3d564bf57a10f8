package dev.pginbox.inbox.spring;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.security.config.Customizer.withDefaults;

import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * The {@code inbox} endpoint's write operations behind Spring Security: the authenticated user is
 * the actor of the audit row. A context of its own (the shared one runs without Spring Security).
 */
@SpringBootTest(
    classes = SecuredActuatorTest.SecuredApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.autoconfigure.exclude="
          + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
          + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
      "inbox.inboxes.guarded.max-retries=1",
      "inbox.inboxes.guarded.worker.poll-interval=200ms",
      "inbox.actuator.write-operations=true",
      "management.endpoints.web.exposure.include=health,inbox"
    })
class SecuredActuatorTest {

  private static final TestDatabase DATABASE = TestPostgres.shared().newDatabase("spring_secured");

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DATABASE::jdbcUrl);
    registry.add("spring.datasource.username", DATABASE::user);
    registry.add(
        "spring.datasource.password", () -> DATABASE.password() == null ? "" : DATABASE.password());
  }

  /** One inbox whose handler makes every message a dead letter; HTTP basic for every request. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class SecuredApplication {

    @Bean
    @Qualifier("guarded")
    MessageHandler rejectEverything() {
      return (message, transaction) -> Outcome.dead("rejected");
    }

    @Bean
    SecurityFilterChain operatorsOnly(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
          .httpBasic(withDefaults())
          .csrf(AbstractHttpConfigurer::disable)
          .build();
    }

    @Bean
    UserDetailsService users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("alice").password("{noop}alice-secret").roles("OPERATOR").build());
    }
  }

  @Autowired PostgresInboxManager manager;
  @Autowired InboxTemplate inboxes;
  @LocalServerPort int port;

  @Test
  void a_replay_through_the_endpoint_records_the_authenticated_user_as_the_actor() {
    inboxes.send("guarded", NewMessage.of("g-1", "rejected", "G-1", "{}"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> manager.inbox("guarded").deadLetters(10).size() == 1);

    // docs/spring-boot.md: POST /actuator/inbox/{name} with {"eventIds": ["e1"]}
    String body =
        RestClient.create("http://localhost:" + port)
            .post()
            .uri("/actuator/inbox/guarded")
            .headers(headers -> headers.setBasicAuth("alice", "alice-secret"))
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"eventIds\": [\"g-1\"]}")
            .exchange(
                (request, response) -> {
                  assertThat(response.getStatusCode().value()).isEqualTo(200);
                  return new String(response.getBody().readAllBytes(), UTF_8);
                });

    assertThat(body).contains("\"replayed\":1");
    OperatorLogEntry replay =
        manager.inbox("guarded").operations().auditLog(10, null).stream()
            .filter(entry -> entry.action().equals("replay"))
            .findFirst()
            .orElseThrow();
    assertThat(replay.actor()).isEqualTo("alice");
  }
}
