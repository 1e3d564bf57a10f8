package dev.mailroom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.collector.Collector;
import dev.mailroom.testkit.TestSmtpServer;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code send}: the original collector's lines on stdin, delivered by SMTP. */
class SendCommandTest {

  // The reference test vectors of the original collector (docs/mailroom.md).
  static final String ACTIVATION =
      "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh_Ri3Yy9eHzSYzQ27mlxgmLvANFsuUMXQadIzL8Ldn_vg";
  static final String RECOVERY =
      "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9o1KiqBNtbi9nUHmKwSTQ45LTukLRPR8yRVaWcdcbNHg";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int send(Map<String, String> env, String input) {
    Collector.Io io =
        new Collector.Io(
            env, out, new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());
    CommandLine cli = Main.commandLine(io);
    SendCommand send = cli.getSubcommands().get("send").getCommand();
    send.stdin = new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8));
    return cli.execute("send");
  }

  private static Map<String, String> smtp(TestSmtpServer server) {
    return Map.of(
        "MAILROOM_DELIVERY", "smtp",
        "MAILROOM_SMTP_HOST", "127.0.0.1",
        "MAILROOM_SMTP_PORT", String.valueOf(server.port()),
        "MAILROOM_SMTP_TLS", "none",
        "MAILROOM_LINK_BASE_URL", "https://example.test");
  }

  @Test
  void the_original_line_format_is_delivered_record_by_record() throws Exception {
    try (TestSmtpServer server = TestSmtpServer.acceptingAll().start()) {
      String line =
          "1,a@x.test,alice," + ACTIVATION + ",12345,2,b@x.test,bob," + RECOVERY + ",54321\n";
      assertThat(send(smtp(server), line)).as(err.toString()).isZero();
      List<MimeMessage> mails = server.received();
      assertThat(mails).hasSize(2);
      assertThat(mails)
          .extracting(m -> m.getAllRecipients()[0].toString())
          .containsExactlyInAnyOrder("a@x.test", "b@x.test");
      String all =
          new String(mails.get(0).getInputStream().readAllBytes(), StandardCharsets.UTF_8)
              + new String(mails.get(1).getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(all.replace("=\r\n", "").replace("=3D", "="))
          .contains("https://example.test/activate?token=" + ACTIVATION)
          .contains("https://example.test/recover?token=" + RECOVERY)
          .contains("54321");
    }
  }

  @Test
  void malformed_lines_are_reported_by_number_and_the_others_still_go_out() throws Exception {
    String longLogin = "l".repeat(300);
    String input =
        "1,ok@x.test,ok,"
            + ACTIVATION
            + ",12345\n"
            + "1,trailing@x.test,t,"
            + ACTIVATION
            + ",12345,\n"
            + "\n"
            + "3,bad@x.test,b,"
            + ACTIVATION
            + ",12345\n"
            + "2,code@x.test,c,"
            + RECOVERY
            + ",12a45\n"
            + "1,long@x.test,"
            + longLogin
            + ","
            + ACTIVATION
            + ",12345\n"
            + "1,short@x.test,s,notatoken,12345\n"
            + "1,last@x.test,last,"
            + ACTIVATION
            + ",12345";
    try (TestSmtpServer server = TestSmtpServer.acceptingAll().start()) {
      assertThat(send(smtp(server), input)).isEqualTo(1);
      assertThat(server.received())
          .extracting(m -> m.getAllRecipients()[0].toString())
          .containsExactlyInAnyOrder("ok@x.test", "long@x.test", "last@x.test");
      assertThat(err.toString())
          .contains("line 2: trailing comma")
          .contains("line 3: empty line")
          .contains("line 4: record 1: action must be 1 or 2, got 3")
          .contains("line 5: record 1: the code must be 5 digits")
          .contains("line 7: record 1: the token is not 86 base64url characters")
          .doesNotContain("line 1:")
          .doesNotContain("line 6:");
    }
  }

  @Test
  void a_refused_recipient_is_reported_and_fails_the_run() throws Exception {
    try (TestSmtpServer server =
        new TestSmtpServer(a -> a.startsWith("nobody") ? "550 5.1.1 unknown user" : null).start()) {
      String input =
          "1,nobody@x.test,n,"
              + ACTIVATION
              + ",12345,1,somebody@x.test,s,"
              + ACTIVATION
              + ",12345\n";
      assertThat(send(smtp(server), input)).isEqualTo(1);
      assertThat(server.received()).hasSize(1);
      assertThat(err.toString())
          .contains("line 1: nobody@x.test: not delivered: SMTP 550: 550 5.1.1 unknown user");
    }
  }

  @Test
  void configuration_errors_exit_2() {
    assertThat(send(Map.of("MAILROOM_DELIVERY", "carrier-pigeon"), "")).isEqualTo(2);
    assertThat(err.toString()).contains("MAILROOM_DELIVERY must be stdout, smtp or ses");
    assertThat(send(Map.of("MAILROOM_DELIVERY", "smtp"), "")).isEqualTo(2);
    assertThat(err.toString()).contains("MAILROOM_SMTP_HOST");
  }

  @Test
  void a_record_whose_email_is_not_one_bare_address_is_reported_and_sent_to_nobody()
      throws Exception {
    List<String> recipients = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (TestSmtpServer server =
        new TestSmtpServer(
                address -> {
                  recipients.add(address);
                  return null;
                })
            .start()) {
      String input =
          "1,\"w2@x.test\" <attacker@evil.test>,w2,"
              + ACTIVATION
              + ",12345\n1,fine@x.test,fine,"
              + ACTIVATION
              + ",12345\n";
      assertThat(send(smtp(server), input)).isEqualTo(1);
      assertThat(recipients).containsExactly("fine@x.test");
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("line 1: \"w2@x.test\" <attacker@evil.test>: not delivered: invalid address: ");
    }
  }
}
