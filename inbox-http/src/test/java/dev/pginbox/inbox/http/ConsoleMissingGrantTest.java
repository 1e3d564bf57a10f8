package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The console connected as a role that may not read everything it shows: the mailroom's collector,
 * a member of inbox_consumer only (docs/mailroom.md, "Database roles"), which may not read the
 * audit log. Every page answers, and one the role may not read says what and which grant is
 * missing.
 */
class ConsoleMissingGrantTest extends HttpTestSupport {

  /** A console connected as a new login role that is a member of one group role only. */
  private record RoleConsole(String role, InboxHttp.Running server, URI origin)
      implements AutoCloseable {

    static RoleConsole consumer(String name) throws Exception {
      return start(name, "inbox_consumer", false);
    }

    static RoleConsole start(String name, String group, boolean writes) throws Exception {
      String role = name + "_" + database.name();
      String password = "console-password-" + System.nanoTime();
      sql("DROP ROLE IF EXISTS " + role);
      sql("CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "' IN ROLE " + group);
      PGSimpleDataSource as = new PGSimpleDataSource();
      as.setUrl(database.jdbcUrl());
      as.setUser(role);
      as.setPassword(password);
      InboxHttp.Running server =
          InboxHttp.builder(PostgresInboxManager.create(as))
              .credentials(operatorCredentials())
              .writeActions(writes)
              .build()
              .start(loopback());
      return new RoleConsole(
          role, server, URI.create("http://127.0.0.1:" + server.address().getPort()));
    }

    @Override
    public void close() {
      server.close();
    }
  }

  private static RoleConsole console;
  private static String role;
  private static URI origin;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  static void consumerConsole() throws Exception {
    installDatabase("inbox_grants");
    PostgresInbox orders = manager.createInbox("orders");
    manager.enableOrdering("orders");
    for (int i = 0; i < 4; i++) {
      orders.send(NewMessage.of("o" + i, "order.placed", "a" + (i % 2), "{}"));
    }
    sql("UPDATE inbox.orders SET retry_count = 3, error = 'no customer 17' WHERE event_id = 'o0'");
    sql("SELECT inbox.replay_inbox_messages('orders', p_event_ids => ARRAY['nothing'])");
    console = RoleConsole.consumer("collector");
    role = console.role();
    origin = console.origin();
  }

  @AfterAll
  static void stop() {
    if (console != null) {
      console.close();
    }
  }

  @Test
  void no_page_fails_for_a_role_without_every_grant() throws Exception {
    List<ConsoleCrawler.Visit> visits = new ConsoleCrawler(origin, 200).crawl();

    assertThat(visits)
        .as("pages that failed instead of saying what the role may not read")
        .filteredOn(v -> v.status() != 200 && v.status() != 403)
        .isEmpty();
    assertThat(visits)
        .filteredOn(v -> v.status() == 403)
        .allSatisfy(
            v ->
                assertThat(v.body())
                    .as(v.url().toString())
                    .contains("may not read")
                    .contains("GRANT inbox_reader TO &quot;" + role + "&quot;"));
  }

  @Test
  void the_audit_log_names_what_could_not_be_read_and_the_missing_grant() throws Exception {
    for (String path : List.of("/audit", "/inbox/orders/audit")) {
      HttpResponse<String> page = get(origin, path);
      assertThat(page.statusCode()).as(path).isEqualTo(403);
      assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
      assertThat(page.body())
          .as(path)
          .contains("audit log")
          .contains("permission denied for table operator_log")
          .contains("GRANT inbox_reader TO &quot;" + role + "&quot;;");
    }
    // One inbox's page also names the grant for that inbox alone.
    assertThat(get(origin, "/inbox/orders/audit").body())
        .contains(
            "SELECT inbox.grant_inbox(&#39;orders&#39;, &#39;"
                + role
                + "&#39;, &#39;reader&#39;);");
  }

  @Test
  void the_grants_the_page_names_are_the_ones_missing() throws Exception {
    try (RoleConsole one = RoleConsole.consumer("one_inbox");
        RoleConsole every = RoleConsole.consumer("every_inbox")) {
      assertThat(get(one.origin(), "/inbox/orders/audit").statusCode()).isEqualTo(403);
      assertThat(get(every.origin(), "/audit").statusCode()).isEqualTo(403);
      sql("SELECT inbox.grant_inbox('orders', '" + one.role() + "', 'reader')");
      sql("GRANT inbox_reader TO \"" + every.role() + "\"");
      assertThat(get(one.origin(), "/inbox/orders/audit").statusCode()).isEqualTo(200);
      assertThat(get(every.origin(), "/audit").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void a_write_the_role_may_not_do_names_the_operator_grant() throws Exception {
    try (RoleConsole reader = RoleConsole.start("reader", "inbox_reader", true)) {
      String inboxPage = get(reader.origin(), "/inbox/orders").body();
      String replayGroup =
          inboxPage.substring(
              inboxPage.lastIndexOf("<form", inboxPage.indexOf(">replay group<")),
              inboxPage.indexOf(">replay group<"));
      HttpResponse<String> confirm =
          post(reader.origin(), "/inbox/orders/confirm", hiddenFields(replayGroup));
      assertThat(confirm.statusCode()).as(confirm.body()).isEqualTo(200);
      HttpResponse<String> run =
          post(reader.origin(), "/inbox/orders/run", hiddenFields(confirm.body()));

      assertThat(run.statusCode()).isEqualTo(403);
      assertThat(run.body())
          .contains("may not do the action it was asked for in inbox orders")
          .contains("GRANT inbox_operator TO &quot;" + reader.role() + "&quot;;")
          .contains(
              "SELECT inbox.grant_inbox(&#39;orders&#39;, &#39;"
                  + reader.role()
                  + "&#39;, &#39;operator&#39;);");
      assertThat(count("SELECT retry_count FROM inbox.orders WHERE event_id = 'o0'")).isEqualTo(3);
    }
  }

  @Test
  void the_json_api_says_so_too() throws Exception {
    HttpResponse<String> audit = get(origin, "/api/audit");
    assertThat(audit.statusCode()).isEqualTo(403);
    assertThat(audit.body())
        .contains("may not read the audit log")
        .contains("GRANT inbox_reader TO \"" + role + "\";");
  }

  /** The hidden fields of a form, urlencoded: what a browser would post. */
  private static String hiddenFields(String html) {
    Matcher m =
        Pattern.compile("<input type=\"hidden\" name=\"([^\"]*)\" value=\"([^\"]*)\">")
            .matcher(html);
    StringBuilder form = new StringBuilder();
    while (m.find()) {
      form.append(form.length() == 0 ? "" : "&")
          .append(URLEncoder.encode(unescape(m.group(1)), StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(unescape(m.group(2)), StandardCharsets.UTF_8));
    }
    return form.toString();
  }

  private static String unescape(String attribute) {
    return attribute.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
  }

  private HttpResponse<String> post(URI server, String path, String form) throws Exception {
    return client.send(
        HttpRequest.newBuilder(server.resolve(path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Authorization", InboxHttpTest.basic(USER, PASSWORD))
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(URI server, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(server.resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
