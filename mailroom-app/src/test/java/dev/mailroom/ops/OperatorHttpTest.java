package dev.mailroom.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
      assertThat(collector.exit.get(30, TimeUnit.SECONDS)).isEqualTo(2);
      assertThat(collector.stderr()).contains("MAILROOM_HTTP_WRITE_ACTIONS=true needs");
    }
  }

  /**
   * The console reads through a pool of its own (application_name mailroom-console): four clients
   * rendering pages over and over use at most its four connections, the same ones throughout, and
   * they are closed with the console. (It used to open a new connection for every query, 8-10 per
   * page.)
   */
  @Test
  void the_console_reads_through_a_small_pool_of_its_own() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_http_pool");
    String base = "http://127.0.0.1:" + (PORT + 2);
    Set<Integer> consolePids = ConcurrentHashMap.newKeySet();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicBoolean rendering = new AtomicBoolean(true);
    try (RunningCollector collector =
            RunningCollector.start(
                RunningCollector.env(db, "MAILROOM_HTTP_PORT", String.valueOf(PORT + 2)));
        Connection watcher = db.db.connect()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(get(base + "/health/ready").body()).contains("\"UP\""));
      db.signUp("pooled");
      CompletableFuture<Void> watch =
          CompletableFuture.runAsync(
              () -> {
                while (rendering.get()) {
                  List<Integer> pids = consoleBackends(watcher);
                  consolePids.addAll(pids);
                  mostAtOnce.accumulateAndGet(pids.size(), Math::max);
                  // A sampling rate, not a wait: the machine has other work than this loop.
                  LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
                }
              });
      ExecutorService clients = Executors.newFixedThreadPool(4);
      try {
        List<Future<List<Integer>>> statuses = new ArrayList<>();
        for (int client = 0; client < 4; client++) {
          statuses.add(clients.submit(() -> renderPages(base, 10)));
        }
        for (Future<List<Integer>> s : statuses) {
          assertThat(s.get(120, TimeUnit.SECONDS)).containsOnly(200);
        }
      } finally {
        clients.shutdownNow();
        rendering.set(false);
      }
      watch.get(10, TimeUnit.SECONDS);

      assertThat(consolePids).as("the console's connections").isNotEmpty();
      assertThat(consolePids.size())
          .as("connections the console ever opened")
          .isLessThanOrEqualTo(4);
      assertThat(mostAtOnce.get()).isLessThanOrEqualTo(4);

      collector.stop();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(consoleBackends(watcher)).isEmpty());
    }
  }

  private List<Integer> renderPages(String base, int rounds) throws Exception {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      for (String page :
          List.of("/", "/inbox/mailroom", "/inbox/mailroom/dlq", "/audit", "/metrics")) {
        statuses.add(get(base + page).statusCode());
      }
    }
    return statuses;
  }

  private static List<Integer> consoleBackends(Connection watcher) {
    try (PreparedStatement s =
            watcher.prepareStatement(
                "SELECT pid FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND application_name = 'mailroom-console'");
        ResultSet rs = s.executeQuery()) {
      List<Integer> pids = new ArrayList<>();
      while (rs.next()) {
        pids.add(rs.getInt(1));
      }
      return pids;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
