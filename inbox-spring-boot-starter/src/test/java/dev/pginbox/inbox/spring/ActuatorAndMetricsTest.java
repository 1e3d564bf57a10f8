package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

class ActuatorAndMetricsTest extends SpringInboxTest {

  @Autowired InboxHealthContributor health;
  @Autowired InboxWorkersHealthIndicator workersHealth;
  @Autowired InboxEndpoint endpoint;
  @Autowired InboxTemplate inboxes;
  @Autowired PostgresInboxManager manager;
  @Autowired MeterRegistry meters;

  @Test
  void health_maps_healthy_and_degraded_to_up_and_critical_to_down() {
    assertThat(
            InboxHealthContributor.health(new InboxHealth("a", 0, 0, 0, 0, HealthStatus.HEALTHY))
                .getStatus())
        .isEqualTo(Status.UP);
    Health degraded =
        InboxHealthContributor.health(
            new InboxHealth("a", 20_000, 1, 40, 5, HealthStatus.DEGRADED));
    assertThat(degraded.getStatus()).isEqualTo(Status.UP);
    assertThat(degraded.getDetails())
        .containsEntry("inbox_status", "degraded")
        .containsEntry("pending_count", 20_000L)
        .containsEntry("pending_count_exact", true)
        .containsEntry("dlq_count", 1L)
        .containsEntry("dlq_count_exact", true);
    Health estimated =
        InboxHealthContributor.health(
            new InboxHealth(
                "a", 20_000, 1, 40, 5, HealthStatus.DEGRADED, 0, 0, 0, false, true, true));
    assertThat(estimated.getDetails())
        .containsEntry("pending_count_exact", false)
        .containsEntry("dlq_count_exact", true);
    assertThat(
            InboxHealthContributor.health(new InboxHealth("a", 0, 0, 500, 0, HealthStatus.CRITICAL))
                .getStatus())
        .isEqualTo(Status.DOWN);
  }

  @Test
  void every_inbox_of_the_database_has_a_health_indicator() {
    Health idle = ((HealthIndicator) health.getContributor("idle")).health();

    assertThat(idle.getStatus()).isEqualTo(Status.UP);
    assertThat(idle.getDetails()).containsEntry("inbox_status", "healthy");
    assertThat(health.stream().map(e -> e.name()))
        .contains("orders", "audit", "notes", "pings", "idle");
    assertThat(health.getContributor("no_such_inbox")).isNull();
  }

  @Test
  void the_workers_indicator_is_up_while_every_worker_is_connected() {
    Health h = workersHealth.health();

    assertThat(h.getStatus()).isEqualTo(Status.UP);
    assertThat(h.getDetails()).containsEntry("orders", "connected");
  }

  @Test
  void the_endpoint_reads_dead_letters_and_replays_them() {
    inboxes.send("notes", NewMessage.of("endpoint-reject", "reject", "N-9", null));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                manager.inbox("notes").deadLetters(100).stream()
                    .anyMatch(m -> m.eventId().equals("endpoint-reject")));

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> dlq = (List<Map<String, Object>>) endpoint.view("notes", "dlq", 1000);
    assertThat(dlq).extracting(m -> m.get("eventId")).contains("endpoint-reject");
    assertThat(endpoint.inbox("notes")).containsKeys("health", "status", "worker");
    assertThat(endpoint.view("notes", "partitions", null)).isEqualTo(List.of());

    WebEndpointResponse<Object> replayed =
        endpoint.replay("notes", "endpoint-reject", null, SecurityContext.NONE);

    assertThat(replayed.getStatus()).isEqualTo(200);
    assertThat(replayed.getBody()).isEqualTo(Map.of("replayed", 1));
  }

  @Test
  void an_automatic_worker_holds_its_leases_under_the_configured_id() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              @SuppressWarnings("unchecked")
              List<Map<String, Object>> leases =
                  (List<Map<String, Object>>) endpoint.view("audit", "partitions", null);
              assertThat(leases).hasSize(4);
              assertThat(leases)
                  .allSatisfy(
                      l ->
                          assertThat(l)
                              .containsEntry("owner_id", "audit-pod-0")
                              .containsEntry("live", true));
            });
  }

  @Test
  void workers_count_into_the_applications_meter_registry() {
    inboxes.send("pings", NewMessage.of("ping-metrics", "ping", null, null));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              var counter = meters.find("inbox.messages.processed").tag("inbox", "pings").counter();
              return counter != null && counter.count() >= 1;
            });
  }
}
