package dev.mailroom.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.verify.SigningKeys;
import dev.mailroom.verify.TokenVerifier;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mail scanners and link previews follow the links of an email before its reader does. Following an
 * activation link (GET) therefore only shows a page with a button; the token is consumed when the
 * reader presses it (POST).
 */
class ActivationByPostTest {

  static MailroomDb db;
  static VerificationServer server;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    db = MailroomDb.create("mailroom_activation_post");
    server =
        VerificationServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new TokenVerifier(
                db.dataSource, new SigningKeys(VerificationServerTest.KEY, List.of())),
            "");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String token(String login) throws Exception {
    return new TokenSigner(VerificationServerTest.KEY)
        .sign(TokenAction.ACTIVATION, db.secretOf(login), null);
  }

  private static HttpResponse<String> get(String pathAndQuery, String accept) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
            .header("Accept", accept)
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String form, String accept) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/activate"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", accept)
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long activated(String login) throws Exception {
    return db.count(
        "SELECT count(*) FROM accounts a JOIN tokens t ON t.account = a.id"
            + " WHERE a.login = ? AND a.status = 'active' AND t.consumed_at IS NOT NULL",
        login);
  }

  @Test
  void following_the_link_shows_a_button_and_consumes_nothing() throws Exception {
    db.signUp("post_scanned");
    String token = token("post_scanned");
    for (int visit = 0; visit < 3; visit++) {
      HttpResponse<String> page = get("/activate?token=" + token, "text/html");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body())
          .contains("<form method=\"post\" action=\"/activate\">")
          .contains("<input type=\"hidden\" name=\"token\" value=\"" + token + "\">")
          .contains("<button type=\"submit\">Activate my account</button>");
    }
    HttpResponse<String> json = get("/activate?token=" + token, "application/json");
    assertThat(json.statusCode()).isEqualTo(405);
    assertThat(json.headers().firstValue("Allow")).hasValue("POST");
    assertThat(activated("post_scanned")).isZero();
  }

  @Test
  void pressing_the_button_consumes_the_token_once() throws Exception {
    db.signUp("post_pressed");
    String token = token("post_pressed");
    HttpResponse<String> done = post("token=" + token, "text/html");
    assertThat(done.statusCode()).isEqualTo(200);
    assertThat(done.body()).contains("Your account is active");
    assertThat(activated("post_pressed")).isEqualTo(1);
    HttpResponse<String> again = post("token=" + token, "application/json");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.body()).contains("\"result\": \"already_consumed\"");
  }

  @Test
  void a_link_without_a_token_says_so() throws Exception {
    HttpResponse<String> page = get("/activate", "text/html");
    assertThat(page.body()).contains("The link is incomplete").doesNotContain("<form");
    assertThat(post("", "application/json").statusCode()).isEqualTo(400);
  }
}
