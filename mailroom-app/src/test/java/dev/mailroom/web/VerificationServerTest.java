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
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class VerificationServerTest {

  static final byte[] KEY = HexFormat.of().parseHex("cafebabe".repeat(8));
  static MailroomDb db;
  static VerificationServer server;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    db = MailroomDb.create("mailroom_serve");
    server =
        VerificationServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new TokenVerifier(db.dataSource, new SigningKeys(KEY, List.of())),
            "");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpResponse<String> get(String pathAndQuery, boolean json) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery));
    if (json) {
      b.header("Accept", "application/json");
    }
    return http.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String form, boolean json)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .header("Content-Type", "application/x-www-form-urlencoded");
    if (json) {
      b.header("Accept", "application/json");
    }
    return http.send(
        b.POST(HttpRequest.BodyPublishers.ofString(form)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String token(String login) throws Exception {
    return new TokenSigner(KEY).sign(TokenAction.ACTIVATION, db.secretOf(login), null);
  }

  @Test
  void activation_answers_with_html_or_json_and_the_right_status() throws Exception {
    db.signUp("web_a", "web_b");
    HttpResponse<String> html = post("/activate", "token=" + token("web_a"), false);
    assertThat(html.statusCode()).isEqualTo(200);
    assertThat(html.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
    assertThat(html.body()).contains("Your account is active");
    assertThat(
            db.count("SELECT count(*) FROM accounts WHERE login = 'web_a' AND status = 'active'"))
        .isEqualTo(1);

    HttpResponse<String> again = post("/activate", "token=" + token("web_a"), true);
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.body()).contains("\"result\": \"already_consumed\"");

    HttpResponse<String> json = post("/activate", "token=" + token("web_b"), true);
    assertThat(json.statusCode()).isEqualTo(200);
    assertThat(json.body()).contains("\"result\": \"activated\"").contains("\"account\": ");

    db.signUp("web_expired");
    db.execute(
        "UPDATE tokens SET expires_at = 0 WHERE account = (SELECT id FROM accounts WHERE login = 'web_expired')");
    assertThat(post("/activate", "token=" + token("web_expired"), true).statusCode())
        .isEqualTo(410);

    db.signUp("web_gone");
    String gone = token("web_gone");
    db.execute("DELETE FROM accounts WHERE login = 'web_gone'");
    assertThat(post("/activate", "token=" + gone, true).statusCode()).isEqualTo(404);
    assertThat(post("/activate", "", true).statusCode()).isEqualTo(400);
    assertThat(post("/activate", "token=" + "A".repeat(86), true).statusCode()).isEqualTo(400);
    assertThat(post("/activate", "token=x", true).statusCode()).isEqualTo(400);
    assertThat(
            http.send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.port() + "/activate"))
                        .DELETE()
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(405);
  }

  @Test
  void recovery_takes_the_code_by_post_and_shows_a_form_by_get() throws Exception {
    long account = db.signUp("web_rec").get(0);
    assertThat(post("/activate", "token=" + token("web_rec"), true).statusCode()).isEqualTo(200);
    db.execute("SELECT mailroom.request_password_recovery('web_rec')");
    String code =
        String.format(
            "%05d",
            db.count(
                "SELECT code::int FROM tokens WHERE action = 'password_recovery' AND account = "
                    + account));
    String token =
        new TokenSigner(KEY).sign(TokenAction.PASSWORD_RECOVERY, db.secretOf("web_rec"), code);
    HttpResponse<String> form = get("/recover?token=" + token, false);
    assertThat(form.statusCode()).isEqualTo(200);
    assertThat(form.body()).contains("<form method=\"post\" action=\"/recover\">").contains(token);
    HttpResponse<String> ok = post("/recover", "token=" + token + "&code=" + code, true);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).contains("\"result\": \"recovered\"");
    assertThat(post("/recover", "token=" + token + "&code=" + code, true).statusCode())
        .isEqualTo(409);
    assertThat(post("/recover", "token=" + token, true).statusCode()).isEqualTo(400);
    assertThat(post("/recover", "x=" + "y".repeat(5000), true).statusCode()).isEqualTo(413);
  }

  @Test
  void every_page_forbids_framing_and_runs_only_its_own_style() throws Exception {
    for (HttpResponse<String> page :
        List.of(get("/recover?token=x", false), get("/activate", false))) {
      assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
      String policy = page.headers().firstValue("Content-Security-Policy").orElseThrow();
      assertThat(policy)
          .contains("default-src 'none'")
          .contains("frame-ancestors 'none'")
          .doesNotContain("unsafe-inline");
      java.util.regex.Matcher style =
          java.util.regex.Pattern.compile("<style>(.*?)</style>").matcher(page.body());
      assertThat(style.find()).isTrue();
      String hash =
          java.util.Base64.getEncoder()
              .encodeToString(
                  java.security.MessageDigest.getInstance("SHA-256")
                      .digest(style.group(1).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      assertThat(policy).contains("style-src 'sha256-" + hash + "'");
    }
  }

  @Test
  void a_value_in_the_page_is_escaped() throws Exception {
    HttpResponse<String> form = get("/recover?token=%3Cscript%3Ealert(1)%3C/script%3E", false);
    assertThat(form.body()).doesNotContain("<script>").contains("&lt;script&gt;");
  }

  @Test
  void the_server_answers_429_after_too_many_failures() throws Exception {
    db.signUp("web_limited");
    try (VerificationServer own =
        VerificationServer.start(
            new InetSocketAddress("127.0.0.1", 0),
            new TokenVerifier(db.dataSource, new SigningKeys(KEY, List.of())),
            "")) {
      String base = "http://127.0.0.1:" + own.port();
      List<Integer> statuses = new java.util.ArrayList<>();
      for (int i = 0; i <= VerificationServer.MAX_FAILURES; i++) {
        statuses.add(
            http.send(
                    HttpRequest.newBuilder(URI.create(base + "/activate"))
                        .POST(HttpRequest.BodyPublishers.ofString("token=" + "B".repeat(86)))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode());
      }
      assertThat(statuses.subList(0, VerificationServer.MAX_FAILURES)).containsOnly(400);
      assertThat(statuses.get(VerificationServer.MAX_FAILURES)).isEqualTo(429);
      // Even a valid token waits for the window to end: guessing gets no answer at all.
      HttpResponse<String> valid =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/activate"))
                  .POST(HttpRequest.BodyPublishers.ofString("token=" + token("web_limited")))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(valid.statusCode()).isEqualTo(429);
    }
  }
}
