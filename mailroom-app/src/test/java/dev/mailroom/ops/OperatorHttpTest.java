package dev.mailroom.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** MAILROOM_HTTP_PORT switches on health, metrics and the console next to the collector. */
class OperatorHttpTest {

  // From the port range reserved for these tests (55600-55699).
  private static final int PORT = 55611;

  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void the_collector_serves_health_metrics_and_the_console_on_loopback() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_http");
    try (RunningCollector collector =
        RunningCollector.start(
            RunningCollector.env(db, "MAILROOM_HTTP_PORT", String.valueOf(PORT)))) {
      String base = "http://127.0.0.1:" + PORT;
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(get(base + "/health/ready").body()).contains("\"UP\""));
      db.signUp("metered");
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(collector.records()).as(collector.stderr()).hasSize(1));
      String metrics = get(base + "/metrics").body();
      assertThat(metrics)
          .contains("inbox_messages_processed_total{inbox=\"mailroom\"")
          .contains("inbox_waiting{inbox=\"mailroom\"}");
      assertThat(get(base + "/").body()).contains("mailroom");
      // Read-only: no credentials were configured.
      HttpResponse<String> write =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/inbox/mailroom/run"))
                  .POST(HttpRequest.BodyPublishers.ofString("action=purge"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(write.statusCode()).isEqualTo(403);
    }
  }

  @Test
  void write_actions_without_credentials_are_a_configuration_error() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_http_conf");
    try (RunningCollector collector =
        RunningCollector.start(
            RunningCollector.env(
                db,
                "MAILROOM_HTTP_PORT",
                String.valueOf(PORT + 1),
                "MAILROOM_HTTP_WRITE_ACTIONS",
                "true"))) {
      assertThat(collector.exit.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(2);
      assertThat(collector.stderr()).contains("MAILROOM_HTTP_WRITE_ACTIONS=true needs");
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
