package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.TestSmtpServer;
import jakarta.mail.Address;
import jakarta.mail.BodyPart;
import jakarta.mail.Multipart;
import jakarta.mail.internet.MimeMessage;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The collector delivering by SMTP to a real SMTP server (GreenMail) in the test JVM. */
class SmtpDeliveryTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String KEY_HEX = "cafebabe".repeat(8);
  private static final Pattern LINK =
      Pattern.compile("http://links\\.test/(activate|recover)\\?token=([A-Za-z0-9_-]{86})");

  static Map<String, String> smtpEnv(MailroomDb db, int port, String... more) {
    List<String> pairs =
        new ArrayList<>(
            List.of(
                "MAILROOM_DELIVERY", "smtp",
                "MAILROOM_SMTP_HOST", "127.0.0.1",
                "MAILROOM_SMTP_PORT", String.valueOf(port),
                "MAILROOM_SMTP_TLS", "none",
                "MAILROOM_MAIL_FROM", "mailroom@x.test",
                "MAILROOM_LINK_BASE_URL", "http://links.test/",
                "MAILROOM_BATCH_TIMEOUT", "200"));
    pairs.addAll(List.of(more));
    return RunningCollector.env(db, pairs.toArray(new String[0]));
  }

  @Test
  void emails_carry_escaped_values_and_links_whose_tokens_verify_independently() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_smtp_content");
    // The schema refuses such a login at sign-up now; one from before the check is still shown.
    db.allowLegacyAccounts();
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        RunningCollector c = RunningCollector.start(smtpEnv(db, smtp.port()))) {
      db.signUp("alice");
      db.execute(
          "INSERT INTO accounts (email, login) VALUES ('script@x.test', '<script>alert(1)</script>'),"
              + " ('crlf@x.test', E'eve\\r\\nBcc: spy@x.test')");
      await().atMost(WAIT).until(() -> smtp.received().size() == 3);
      await().atMost(WAIT).until(() -> db.pending() == 0);
      assertThat(c.stdout()).isEmpty();

      Map<String, MimeMessage> byRecipient = new HashMap<>();
      for (MimeMessage m : smtp.received()) {
        Address[] to = m.getAllRecipients();
        assertThat(to).hasSize(1);
        assertThat(m.getHeader("Bcc")).isNull();
        byRecipient.put(to[0].toString(), m);
      }
      assertThat(byRecipient).containsOnlyKeys("alice@x.test", "script@x.test", "crlf@x.test");

      MimeMessage alice = byRecipient.get("alice@x.test");
      assertThat(alice.getFrom()[0].toString()).isEqualTo("mailroom@x.test");
      assertThat(alice.getSubject()).isEqualTo("Activate your account, alice");
      assertThat(alice.getHeader("Auto-Submitted")[0]).isEqualTo("auto-generated");
      String text = part(alice, "text/plain");
      String html = part(alice, "text/html");
      Matcher link = LINK.matcher(text);
      assertThat(link.find()).as(text).isTrue();
      assertThat(link.group(1)).isEqualTo("activate");
      assertThat(html).contains("href=\"" + link.group() + "\"");
      byte[] secret = verifyIndependently("/activate", link.group(2), null);
      assertThat(secret).isEqualTo(db.secretOf("alice"));

      MimeMessage script = byRecipient.get("script@x.test");
      assertThat(part(script, "text/html"))
          .doesNotContain("<script>")
          .contains("&lt;script&gt;alert(1)&lt;/script&gt;");

      MimeMessage crlf = byRecipient.get("crlf@x.test");
      assertThat(crlf.getSubject()).isEqualTo("Activate your account, eve  Bcc: spy@x.test");
      assertThat(crlf.getHeader("Bcc")).isNull();
      assertThat(smtp.received()).noneMatch(m -> String.valueOf(recipients(m)).contains("spy"));
      assertThat(c.stop()).isZero();
    }
  }

  @Test
  void an_address_that_is_not_one_is_dead_lettered_with_the_reason() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_smtp_bad_address");
    db.allowLegacyAccounts();
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        RunningCollector c = RunningCollector.start(smtpEnv(db, smtp.port()))) {
      db.execute(
          "INSERT INTO accounts (email, login) VALUES ('<b>@x.test', 'odd'), ('fine@x.test', 'fine')");
      await().atMost(WAIT).until(() -> db.count("SELECT count(*) FROM inbox.mailroom_dlq") == 1);
      await().atMost(WAIT).until(() -> smtp.received().size() == 1);
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.mailroom_dlq WHERE error LIKE 'invalid address%'"))
          .isEqualTo(1);
      assertThat(recipientsOf(smtp)).containsExactly("fine@x.test");
      assertThat(c.stop()).isZero();
    }
  }

  @Test
  void recovery_mail_shows_the_code_and_its_link_verifies_with_it() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_smtp_recovery");
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        RunningCollector c = RunningCollector.start(smtpEnv(db, smtp.port()))) {
      db.signUp("bob");
      await().atMost(WAIT).until(() -> smtp.received().size() == 1);
      db.execute(
          "UPDATE tokens SET consumed_at = extract(epoch FROM now())",
          "SELECT mailroom.request_password_recovery('bob')");
      await().atMost(WAIT).until(() -> smtp.received().size() == 2);
      MimeMessage recovery =
          smtp.received().stream()
              .filter(m -> subject(m).startsWith("Your password recovery code"))
              .findFirst()
              .orElseThrow();
      String code =
          String.valueOf(
              db.count("SELECT code::int FROM tokens WHERE action = 'password_recovery'"));
      code = "0".repeat(5 - code.length()) + code;
      String text = part(recovery, "text/plain");
      assertThat(text).contains("    " + code + "\n");
      assertThat(part(recovery, "text/html")).contains("<strong>" + code + "</strong>");
      Matcher link = LINK.matcher(text);
      assertThat(link.find()).isTrue();
      assertThat(link.group(1)).isEqualTo("recover");
      assertThat(verifyIndependently("/recover", link.group(2), code)).hasSize(32);
      assertThat(c.stop()).isZero();
    }
  }

  @Test
  void a_5xx_dead_letters_its_token_a_4xx_retries_it_and_the_rest_are_delivered() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_smtp_outcomes");
    // Many retries: the 4xx recipient keeps being retried (not dead) while the test looks.
    db.execute(
        "UPDATE inbox.inbox_config SET max_retries = 1000, backoff_base = interval '50 milliseconds',"
            + " backoff_max = interval '200 milliseconds' WHERE inbox_name = 'mailroom'",
        "SELECT inbox.rebuild_inbox_objects('mailroom')");
    try (TestSmtpServer smtp =
            new TestSmtpServer(
                    address ->
                        address.startsWith("bounce")
                            ? "550 5.1.1 no such user here"
                            : address.startsWith("later") ? "451 4.3.0 try again later" : null)
                .start();
        RunningCollector c =
            RunningCollector.start(smtpEnv(db, smtp.port(), "MAILROOM_BATCH_LIMIT", "10"))) {
      // One transaction: the four tokens arrive together and make one batch.
      db.execute(
          "INSERT INTO accounts (email, login) VALUES ('ok1@x.test', 'ok1'), ('bounce@x.test', 'bounce'),"
              + " ('later@x.test', 'later'), ('ok2@x.test', 'ok2')");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  db.count("SELECT count(*) FROM inbox.mailroom_dlq") == 1
                      && db.count(
                              "SELECT count(*) FROM inbox.mailroom WHERE retry_count >= 2 AND processed_at IS NULL")
                          == 2);
      assertThat(recipientsOf(smtp)).containsExactlyInAnyOrder("ok1@x.test", "ok2@x.test");
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.mailroom_dlq d JOIN tokens t ON d.event_id = 'token-' || t.id"
                      + " JOIN accounts a ON a.id = t.account WHERE a.login = 'bounce' AND d.error LIKE 'SMTP 550%no such user%'"))
          .isEqualTo(1);
      assertThat(
              db.count(
                  "SELECT count(*) FROM inbox.mailroom m JOIN tokens t ON m.event_id = 'token-' || t.id"
                      + " JOIN accounts a ON a.id = t.account WHERE a.login = 'later' AND m.error LIKE 'SMTP 451%'"
                      + " AND m.processed_at IS NULL"))
          .isEqualTo(1);
      assertThat(c.stop()).isZero();
    }
  }

  @Test
  void a_server_stopped_and_restarted_mid_run_loses_nothing_and_sends_nothing_twice()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_smtp_restart");
    // Short backoff and room for many retries: the outage lasts as long as the test wants.
    db.execute(
        "UPDATE inbox.inbox_config SET max_retries = 1000, backoff_base = interval '50 milliseconds',"
            + " backoff_max = interval '200 milliseconds' WHERE inbox_name = 'mailroom'",
        "SELECT inbox.rebuild_inbox_objects('mailroom')");
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        RunningCollector c =
            RunningCollector.start(smtpEnv(db, smtp.port(), "MAILROOM_BATCH_LIMIT", "5"))) {
      List<String> first = signUpMany(db, "a", 12);
      await().atMost(WAIT).until(() -> smtp.received().size() == 12);
      smtp.stop();
      List<String> second = signUpMany(db, "b", 12);
      // Failures while the server is down are retries, not dead letters. Wait for two batches'
      // worth of them, not for all twelve: the oldest tokens come first in claim order whenever
      // their short backoff has run out, so the youngest may wait their turn until the server is
      // back (in CI they once waited longer than a minute).
      await()
          .atMost(WAIT)
          .until(
              () ->
                  db.count(
                          "SELECT count(*) FROM inbox.mailroom WHERE processed_at IS NULL AND retry_count >= 1")
                      >= 10);
      assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
      smtp.start();
      List<String> third = signUpMany(db, "c", 12);
      await().atMost(WAIT).until(() -> db.pending() == 0);
      await().atMost(WAIT).until(() -> smtp.received().size() >= 36);

      List<String> expected = new ArrayList<>(first);
      expected.addAll(second);
      expected.addAll(third);
      assertThat(recipientsOf(smtp)).containsExactlyInAnyOrderElementsOf(expected);
      Set<String> tokens = new HashSet<>();
      for (MimeMessage m : smtp.received()) {
        Matcher link = LINK.matcher(part(m, "text/plain"));
        assertThat(link.find()).isTrue();
        assertThat(tokens.add(link.group(2))).as("token delivered twice").isTrue();
      }
      assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
      assertThat(c.stop()).isZero();
    }
  }

  private static List<String> signUpMany(MailroomDb db, String prefix, int n) throws Exception {
    List<String> emails = new ArrayList<>();
    String[] logins = new String[n];
    for (int i = 0; i < n; i++) {
      logins[i] = prefix + i;
      emails.add(logins[i] + "@x.test");
    }
    db.signUp(logins);
    return emails;
  }

  static List<String> recipientsOf(TestSmtpServer smtp) {
    return smtp.received().stream().map(SmtpDeliveryTest::recipients).toList();
  }

  private static String recipients(MimeMessage m) {
    try {
      return m.getAllRecipients()[0].toString();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String subject(MimeMessage m) {
    try {
      return m.getSubject();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static String part(MimeMessage message, String type) {
    try {
      Multipart multipart = (Multipart) message.getContent();
      for (int i = 0; i < multipart.getCount(); i++) {
        BodyPart p = multipart.getBodyPart(i);
        if (p.isMimeType(type)) {
          return String.valueOf(p.getContent()).replace("\r\n", "\n");
        }
      }
      throw new AssertionError("no " + type + " part");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The token's secret, after checking its MAC with a plain HMAC, independent of TokenSigner. */
  static byte[] verifyIndependently(String path, String token, String code) throws Exception {
    byte[] bytes = Base64.getUrlDecoder().decode(token);
    assertThat(bytes).hasSize(64);
    byte[] secret = java.util.Arrays.copyOfRange(bytes, 0, 32);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(HexFormat.of().parseHex(KEY_HEX), "HmacSHA256"));
    mac.update(path.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    mac.update(secret);
    if (code != null) {
      mac.update(code.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    assertThat(MessageDigest.isEqual(mac.doFinal(), java.util.Arrays.copyOfRange(bytes, 32, 64)))
        .as("the MAC of " + token)
        .isTrue();
    return secret;
  }
}
