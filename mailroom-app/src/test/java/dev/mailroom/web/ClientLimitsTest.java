package dev.mailroom.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.verify.SigningKeys;
import dev.mailroom.verify.TokenVerifier;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failed attempts are limited per client and per token, and behind a trusted reverse proxy the
 * client is the one its {@code X-Forwarded-For} names, so one client's failures do not lock out
 * everybody else behind the same proxy. The test's requests come from 127.0.0.1, standing for the
 * proxy.
 */
class ClientLimitsTest {

  static MailroomDb db;
  static final HttpClient http = HttpClient.newHttpClient();
  private int junk;

  @BeforeAll
  static void database() {
    db = MailroomDb.create("mailroom_client_limits");
  }

  private static VerificationServer server(TrustedProxies proxies) throws Exception {
    return VerificationServer.start(
        new InetSocketAddress("127.0.0.1", 0),
        new TokenVerifier(db.dataSource, new SigningKeys(VerificationServerTest.KEY, List.of())),
        "",
        proxies);
  }

  /** A token-shaped string no key signed, a new one each time unless asked for the same. */
  private String junkToken() {
    String n = Integer.toString(++junk);
    return n + "A".repeat(86 - n.length());
  }

  /** A wrong recovery attempt: answered 400 while the client and token may still try. */
  private static int failedRecovery(VerificationServer s, String token, String forwardedFor)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/recover"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json");
    if (forwardedFor != null) {
      b.header("X-Forwarded-For", forwardedFor);
    }
    String form = "token=" + token + "&code=12345";
    return http.send(
            b.POST(HttpRequest.BodyPublishers.ofString(form)).build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  private List<Integer> failures(VerificationServer s, int n, String forwardedFor)
      throws Exception {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      statuses.add(failedRecovery(s, junkToken(), forwardedFor));
    }
    return statuses;
  }

  @Test
  void behind_a_trusted_proxy_one_client_s_failures_do_not_block_another() throws Exception {
    try (VerificationServer s = server(TrustedProxies.parse("127.0.0.1"))) {
      assertThat(failures(s, VerificationServer.MAX_FAILURES, "203.0.113.5")).containsOnly(400);
      assertThat(failedRecovery(s, junkToken(), "203.0.113.5")).isEqualTo(429);
      assertThat(failedRecovery(s, junkToken(), "6.6.6.6, 203.0.113.5"))
          .as("what the client wrote left of its address changes nothing")
          .isEqualTo(429);
      assertThat(failedRecovery(s, junkToken(), "203.0.113.6")).isEqualTo(400);
    }
  }

  @Test
  void without_a_trusted_proxy_x_forwarded_for_is_ignored() throws Exception {
    try (VerificationServer s = server(TrustedProxies.none())) {
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < VerificationServer.MAX_FAILURES; i++) {
        statuses.add(failedRecovery(s, junkToken(), "198.51.100." + i));
      }
      assertThat(statuses).containsOnly(400);
      assertThat(failedRecovery(s, junkToken(), "198.51.100.200")).isEqualTo(429);
    }
  }

  @Test
  void a_token_s_failures_are_limited_whoever_tries_it() throws Exception {
    try (VerificationServer s = server(TrustedProxies.parse("127.0.0.0/8"))) {
      String token = junkToken();
      for (int i = 0; i < VerificationServer.MAX_FAILURES; i++) {
        assertThat(failedRecovery(s, token, "198.51.100." + i)).isEqualTo(400);
      }
      assertThat(failedRecovery(s, token, "198.51.100.200")).isEqualTo(429);
      assertThat(failedRecovery(s, junkToken(), "198.51.100.200"))
          .as("the same client with another token")
          .isEqualTo(400);
    }
  }

  @Test
  void ipv6_clients_share_the_limit_of_their_64_prefix() throws Exception {
    try (VerificationServer s = server(TrustedProxies.parse("127.0.0.1"))) {
      List<Integer> statuses = new ArrayList<>();
      for (int i = 1; i <= VerificationServer.MAX_FAILURES; i++) {
        statuses.add(failedRecovery(s, junkToken(), "2001:db8:1:2::" + Integer.toHexString(i)));
      }
      assertThat(statuses).containsOnly(400);
      assertThat(failedRecovery(s, junkToken(), "2001:db8:1:2:ffff:ffff:ffff:ffff")).isEqualTo(429);
      assertThat(failedRecovery(s, junkToken(), "2001:db8:1:3::1")).isEqualTo(400);
    }
  }
}
