package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InboxHttpTest extends HttpTestSupport {

  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  static void setUp() {
    installDatabase("inbox_http");
    PostgresInbox orders = manager.createInbox("orders");
    for (int i = 0; i < 6; i++) {
      orders.send(NewMessage.of("o" + i, "order.placed", "a" + i, "{\"n\": " + i + "}"));
    }
    sql(
        "UPDATE inbox.orders SET retry_count = 3, error = 'timeout after ' || length(event_id) || '0 ms' WHERE event_id IN ('o1', 'o2', 'o3')");
  }

  @Test
  void health_is_live_and_ready_with_running_workers_and_503_when_a_worker_is_not_running()
      throws Exception {
    PrometheusMeterRegistry registry = InboxHttp.prometheusRegistry();
    Readiness readiness = new Readiness();
    manager.createInbox("ready_check");
    InboxWorker worker =
        PostgresInboxWorker.builder(
                database.dataSource(), WorkerOptions.builder("ready_check").build())
            .meterRegistry(registry)
            .listener(readiness.track("ready_check"))
            .handler((m, tx) -> Outcome.processed())
            .build();
    InboxHttp http =
        InboxHttp.builder(manager)
            .meterRegistry(registry)
            .workers(List.of(worker))
            .readiness(readiness)
            .build();
    try (InboxHttp.Running server = http.start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort();
      assertThat(get(base + "/health/ready").statusCode()).isEqualTo(503);
      worker.start();
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> get(base + "/health/ready").statusCode() == 200);
      assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);

      HttpResponse<String> metrics = get(base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .contains("inbox_waiting{inbox=\"orders\"} 3.0")
          .contains("inbox_dead{inbox=\"orders\"} 3.0")
          .contains("inbox_blocked_aggregates{inbox=\"orders\"}")
          .contains("inbox_partition_lag{inbox=\"orders\",partition=\"all\"}")
          .contains("inbox_messages_claimed_total");

      worker.stop();
      HttpResponse<String> down = get(base + "/health/ready");
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(down.body()).contains("not running");
    }
  }

  /** The inbox page and the JSON API say how many rows vacuum still owes the inbox's table. */
  @Test
  void the_console_and_the_api_show_what_vacuum_still_owes() throws Exception {
    PostgresInbox owing = manager.createInbox("owing");
    for (int i = 0; i < 4; i++) {
      owing.send(NewMessage.of("w" + i, "t", "a" + i, null));
    }
    sql("SELECT count(*) FROM inbox.claim_owing(4)");
    // The server's statistics arrive within a second or so.
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(20))
        .until(() -> owing.operations().vacuum().deadRows() == 4);
    try (InboxHttp.Running server = InboxHttp.builder(manager).build().start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort();
      assertThat(get(base + "/inbox/owing").body())
          .contains(">vacuum owes 4 rows · last vacuum never · autovacuum ");
      assertThat(get(base + "/api/inboxes/owing/vacuum").body())
          .contains("\"deadRows\" : 4")
          .contains("\"lastVacuum\" : null");
    }
  }

  /**
   * A message that never failed has next_attempt_at '-infinity' (and a tampered one may have any
   * time): its page answers, as do those of processed and dead messages.
   */
  @Test
  void the_message_page_answers_for_every_state_and_any_stored_time() throws Exception {
    PostgresInbox times = manager.createInbox("times");
    for (String id : new String[] {"pending", "processed", "dead", "never", "ancient"}) {
      times.send(NewMessage.of(id, "t", id, null));
    }
    sql("UPDATE inbox.times SET processed_at = now() WHERE event_id = 'processed'");
    sql("UPDATE inbox.times SET retry_count = 3, error = 'boom' WHERE event_id = 'dead'");
    sql("UPDATE inbox.times SET next_attempt_at = 'infinity' WHERE event_id = 'never'");
    sql("UPDATE inbox.times SET received_at = '-infinity' WHERE event_id = 'ancient'");
    try (InboxHttp.Running server = InboxHttp.builder(manager).build().start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort();
      for (String id : new String[] {"pending", "processed", "dead", "never", "ancient"}) {
        HttpResponse<String> page = get(base + "/inbox/times/message/" + id);
        assertThat(page.statusCode()).as(id).isEqualTo(200);
        assertThat(page.body()).as(id).contains(id);
      }
      assertThat(get(base + "/inbox/times/message/never").body()).contains("infinity");
      assertThat(get(base + "/inbox/times").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void health_says_which_counts_are_estimates_in_json_and_on_the_console() throws Exception {
    // Counting stops at the critical threshold + 1 (here 2): three waiting are not counted exactly,
    // the planner's estimate (never less than 2) is reported instead.
    PostgresInbox capped =
        manager.createInbox(
            "capped", InboxOptions.builder().degradedAt(60, 1).criticalAt(120, 1).build());
    for (int i = 0; i < 3; i++) {
      capped.send(NewMessage.of("c" + i, "t", "a" + i, null));
    }
    sql("ANALYZE inbox.capped");
    long estimate = capped.health().pendingCount();
    try (InboxHttp.Running server = InboxHttp.builder(manager).build().start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort();
      assertThat(get(base + "/api/inboxes/capped/health").body())
          .contains("\"pendingCountExact\" : false")
          .contains("\"dlqCountExact\" : true");
      assertThat(get(base + "/api/inboxes/orders/health").body())
          .contains("\"pendingCount\" : 3")
          .contains("\"pendingCountExact\" : true");
      assertThat(get(base + "/inbox/capped").body())
          .contains(">~" + estimate + "</span> waiting")
          .contains("<span class=\"reasons\">pending_count: critical</span>");
      assertThat(get(base + "/inbox/orders").body()).contains(">3</span> waiting");
    }
  }

  @Test
  void the_json_api_answers_the_operator_functions_and_rejects_bad_input() throws Exception {
    try (InboxHttp.Running server = InboxHttp.builder(manager).build().start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort() + "/api";
      assertThat(get(base + "/inboxes").body())
          .contains("\"orders\"")
          .contains("\"pendingCount\" : 3");
      assertThat(get(base + "/inboxes/orders/dlq-groups").body())
          .contains("\"errorGroup\" : \"timeout after <n> ms\"")
          .contains("\"count\" : 3");
      assertThat(get(base + "/inboxes/orders/messages/o4").body())
          .contains("\"state\" : \"pending\"");
      assertThat(get(base + "/inboxes/orders/messages/nope").statusCode()).isEqualTo(404);
      assertThat(get(base + "/inboxes/nope/health").statusCode()).isEqualTo(404);
      assertThat(get(base + "/inboxes/orders/blocked?limit=5000").statusCode()).isEqualTo(400);
      assertThat(get(base + "/inboxes/orders/dead-letters?limit=2").body())
          .contains("o1")
          .contains("o2")
          .doesNotContain("o3");
      assertThat(get(base + "/inboxes/orders/lag").statusCode()).isEqualTo(200);
      assertThat(get(base + "/inboxes/orders/workers").statusCode()).isEqualTo(200);
      assertThat(get(base + "/audit").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void write_actions_need_credentials_a_csrf_token_and_are_audited_with_the_user()
      throws Exception {
    manager.createInbox("writes");
    manager.inbox("writes").send(NewMessage.of("w1", "t", "a", null));
    sql("UPDATE inbox.writes SET retry_count = 3, error = 'e'");
    InboxHttp http =
        InboxHttp.builder(manager).credentials(operatorCredentials()).writeActions(true).build();
    try (InboxHttp.Running server = http.start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort() + "/inbox/writes";
      String form = "action=replay&by=ids&id=w1";
      assertThat(post(base + "/confirm", form, null).statusCode()).isEqualTo(401);
      assertThat(post(base + "/run", form, null).statusCode()).isEqualTo(401);
      assertThat(post(base + "/run", form, basic(USER, "wrong-password-123")).statusCode())
          .isEqualTo(401);
      // Authenticated but without the CSRF token of the confirmation page: refused.
      assertThat(post(base + "/run", form, basic(USER, PASSWORD)).statusCode()).isEqualTo(403);
      assertThat(count("SELECT retry_count FROM inbox.writes")).isEqualTo(3);

      HttpResponse<String> confirm = post(base + "/confirm", form, basic(USER, PASSWORD));
      assertThat(confirm.statusCode()).isEqualTo(200);
      assertThat(confirm.body()).contains("1 message(s)");
      Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(confirm.body());
      assertThat(csrf.find()).isTrue();
      // A token from another origin's page is refused even with a valid token.
      HttpResponse<String> crossSite =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/run"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Authorization", basic(USER, PASSWORD))
                  .header("Origin", "http://evil.example")
                  .POST(HttpRequest.BodyPublishers.ofString(form + "&csrf=" + csrf.group(1)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(crossSite.statusCode()).isEqualTo(403);

      HttpResponse<String> run =
          post(base + "/run", form + "&csrf=" + csrf.group(1), basic(USER, PASSWORD));
      assertThat(run.statusCode()).isEqualTo(303);
      assertThat(run.headers().firstValue("Location").orElseThrow())
          .endsWith("?done=replay&count=1");
      assertThat(get(base + "?done=replay&count=1").body()).contains("replayed 1 message(s)");
      assertThat(count("SELECT retry_count FROM inbox.writes")).isZero();
      String actor =
          jdbi.withHandle(
              h ->
                  h.select(
                          "SELECT actor FROM inbox.operator_log WHERE inbox_name = 'writes' AND action = 'replay'")
                      .mapTo(String.class)
                      .one());
      assertThat(actor).isEqualTo(USER);
    }
  }

  @Test
  void a_read_only_console_refuses_writes_even_with_credentials() throws Exception {
    InboxHttp http = InboxHttp.builder(manager).credentials(operatorCredentials()).build();
    try (InboxHttp.Running server = http.start(loopback())) {
      String base = "http://127.0.0.1:" + server.address().getPort();
      assertThat(get(base + "/").body()).contains("orders").doesNotContain("replay group");
      assertThat(
              post(base + "/inbox/orders/run", "action=replay&by=ids&id=o1", basic(USER, PASSWORD))
                  .statusCode())
          .isEqualTo(403);
    }
  }

  @Test
  void the_module_mounts_next_to_other_handlers_on_one_server() throws Exception {
    HttpServer server = HttpServer.create(loopback(), 0);
    server.createContext("/verify", e -> Exchanges.send(e, 200, "text/plain", "mine"));
    InboxHttp.builder(manager).build().mount(server);
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      assertThat(get(base + "/verify").body()).isEqualTo("mine");
      assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);
      assertThat(get(base + "/").body()).contains("orders");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void write_actions_without_credentials_cannot_be_enabled_and_weak_secrets_are_refused() {
    assertThatThrownBy(() -> InboxHttp.builder(manager).writeActions(true).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new Credentials(Map.of("admin", "admin"), null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("admin\"");
    assertThat(Credentials.fromEnvironment(Map.of()).any()).isFalse();
    Credentials env =
        Credentials.fromEnvironment(
            Map.of(
                "INBOX_HTTP_USERS",
                "ann:0123456789abc,bob:abcdefghijklmn",
                "INBOX_HTTP_TOKEN",
                "t0123456789abcdef"));
    assertThat(env.users()).containsOnlyKeys("ann", "bob");
    assertThat(env.toString()).doesNotContain("0123456789abc").doesNotContain("t0123456789abcdef");
    assertThatThrownBy(
            () -> Credentials.fromEnvironment(Map.of("INBOX_HTTP_USERS", "secretwithoutcolon")))
        .hasMessageNotContaining("secretwithoutcolon");
  }

  private HttpResponse<String> get(String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String url, String form, String authorization)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }
}
