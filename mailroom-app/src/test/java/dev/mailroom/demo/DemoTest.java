package dev.mailroom.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.collector.Collector;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The demo closes the loop: a sign-up, its email on the page, a click, an active account. */
class DemoTest {

  private static final Pattern ROW =
      Pattern.compile(
          "<tr><td>([^<]+)</td><td>Activate your account[^<]*</td><td><a href=\"([^\"]+)\">activate</a></td><td class=\"status\">(\\w+)</td></tr>");

  @Test
  void an_activation_link_on_the_demo_page_and_its_button_activate_the_account() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_demo");
    HttpClient http = HttpClient.newHttpClient();
    try (RunningDemo demo = RunningDemo.start(db)) {
      String home = demo.home();
      Matcher[] row = new Matcher[1];
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(
              () -> {
                String page = get(http, home).body();
                Matcher m = ROW.matcher(page);
                if (m.find()) {
                  row[0] = m;
                  return true;
                }
                return false;
              });
      String email = row[0].group(1);
      assertThat(row[0].group(3)).isEqualTo("provisioned");
      String link = row[0].group(2).replace("&amp;", "&");
      assertThat(link).startsWith(home + "activate?token=");

      // The link shows a button (mail scanners follow links too); the button activates.
      HttpResponse<String> click = get(http, link);
      assertThat(click.statusCode()).isEqualTo(200);
      assertThat(click.body()).contains("<form method=\"post\" action=\"/activate\">");
      HttpResponse<String> press =
          http.send(
              HttpRequest.newBuilder(URI.create(home + "activate"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "token=" + link.substring(link.indexOf("token=") + 6)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(press.statusCode()).isEqualTo(200);
      assertThat(press.body()).contains("Your account is active").contains("href=\"/\"");

      String after = get(http, home).body();
      assertThat(after)
          .containsPattern(
              Pattern.quote(email)
                  + "</td><td>Activate[^<]*</td><td><a[^>]*>activate</a></td><td class=\"status\">active<");
      assertThat(
              db.count(
                  "SELECT count(*) FROM accounts WHERE email = ? AND status = 'active'", email))
          .isEqualTo(1);
    }
  }

  @Test
  void a_taken_port_fails_the_demo_naming_the_variable_that_sets_it() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_demo_port");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Map<String, String> env = new HashMap<>(RunningCollector.env(db));
      env.put("MAILROOM_HTTP_PORT", String.valueOf(taken.getLocalPort()));
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      Demo demo =
          new Demo(
              new Collector.Io(
                  env,
                  new ByteArrayOutputStream(),
                  new PrintStream(err, true, StandardCharsets.UTF_8),
                  Clock.systemUTC()));

      int exit = CompletableFuture.supplyAsync(demo::run).get(120, TimeUnit.SECONDS);

      assertThat(exit).isEqualTo(Collector.EXIT_FAILURE);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains(":" + taken.getLocalPort())
          .contains("set MAILROOM_HTTP_PORT to a free port");
    }
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
