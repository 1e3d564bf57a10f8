package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SesEmulator;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sesv2.SesV2Client;

/** The collector delivering through Amazon SES v2, against the aws-ses-v2-local emulator. */
class SesDeliveryTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern LINK =
      Pattern.compile("https://app\\.test/(activate|recover)\\?token=([A-Za-z0-9_-]{86})");
  static SesEmulator ses;

  @BeforeAll
  static void emulator() throws Exception {
    ses = SesEmulator.start();
    // The SDK's default chains, as in production: here from system properties.
    System.setProperty("aws.accessKeyId", "test");
    System.setProperty("aws.secretAccessKey", "test");
    System.setProperty("aws.region", "us-east-1");
    createTemplates();
  }

  /** The original sender's templates, kept in SES (the emulator forgets them when it stops). */
  private static void createTemplates() {
    try (SesV2Client client =
        SesV2Client.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            .endpointOverride(URI.create(ses.endpoint()))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .build()) {
      client.createEmailTemplate(
          r ->
              r.templateName("activationv1")
                  .templateContent(
                      c ->
                          c.subject("Welcome {{login}}")
                              .text("Activate: {{link}}")
                              .html("<a href=\"{{link}}\">activate</a>")));
      client.createEmailTemplate(
          r ->
              r.templateName("passwordrecoveryv1")
                  .templateContent(
                      c ->
                          c.subject("Recovery for {{login}}")
                              .text("Code {{code}} at {{link}}")
                              .html("<p>{{code}}</p>")));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (ses != null) {
      ses.close();
    }
  }

  private static Map<String, String> sesEnv(MailroomDb db) {
    return RunningCollector.env(
        db,
        "MAILROOM_DELIVERY",
        "ses",
        "MAILROOM_SES_ENDPOINT",
        ses.endpoint(),
        "MAILROOM_SES_SOURCE",
        "mailroom@app.test",
        "MAILROOM_LINK_BASE_URL",
        "https://app.test",
        "MAILROOM_BATCH_TIMEOUT",
        "200");
  }

  @Test
  void bulk_templated_sends_per_action_with_links_that_verify() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_ses_send");
    try (RunningCollector c = RunningCollector.start(sesEnv(db))) {
      db.signUp("sesalice", "sesbob");
      await().atMost(WAIT).until(() -> db.pending() == 0);
      await().atMost(WAIT).until(() -> count(ses.store(), "\"subject\":\"Welcome ") == 2);
      String store = ses.store();
      assertThat(store)
          .contains("\"from\":\"mailroom@app.test\"")
          .contains("\"to\":[\"sesalice@x.test\"]")
          .contains("\"subject\":\"Welcome sesbob\"");
      Matcher link = LINK.matcher(store);
      int verified = 0;
      while (link.find()) {
        byte[] secret = SmtpDeliveryTest.verifyIndependently("/activate", link.group(2), null);
        assertThat(secret).hasSize(32);
        verified++;
      }
      assertThat(verified).isGreaterThanOrEqualTo(2);

      db.execute(
          "UPDATE tokens SET consumed_at = extract(epoch FROM now())",
          "SELECT mailroom.request_password_recovery('sesalice')");
      await()
          .atMost(WAIT)
          .until(() -> count(ses.store(), "\"subject\":\"Recovery for sesalice\"") == 1);
      assertThat(c.stop()).isZero();
    }
  }

  @Test
  void an_endpoint_that_is_down_delays_tokens_and_loses_none() throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_ses_down");
    db.execute(
        "UPDATE inbox.inbox_config SET max_retries = 1000, backoff_base = interval '50 milliseconds',"
            + " backoff_max = interval '200 milliseconds' WHERE inbox_name = 'mailroom'",
        "SELECT inbox.rebuild_inbox_objects('mailroom')");
    try (RunningCollector c = RunningCollector.start(sesEnv(db))) {
      ses.stop();
      db.signUp("sesdown1", "sesdown2");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  db.count(
                          "SELECT count(*) FROM inbox.mailroom WHERE processed_at IS NULL AND retry_count >= 1")
                      == 2);
      assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
      assertThat(c.stderr()).contains("failed for now: SES");
      ses.run();
      createTemplates();
      await().atMost(WAIT).until(() -> db.pending() == 0);
      await().atMost(WAIT).until(() -> ses.store().contains("sesdown2@x.test"));
      assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
      assertThat(c.stop()).isZero();
    }
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
