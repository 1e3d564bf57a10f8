package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenAction;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.TestSmtpServer;
import dev.pginbox.inbox.testsupport.CountingProxy;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * SMTP connections kept between batches and a batch spread over several connections, against a real
 * SMTP server (GreenMail) behind a proxy that counts and drops connections.
 */
class SmtpConnectionsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String TOKEN = "t".repeat(86);

  private static SmtpDelivery delivery(int port, int connections) {
    return new SmtpDelivery(settings(port, connections), new MailTemplates("http://x.test", null));
  }

  private static SmtpSettings settings(int port, int connections) {
    return new SmtpSettings(
        "127.0.0.1", port, null, null, SmtpSettings.Tls.NONE, "mailroom@x.test", connections);
  }

  private static List<OutputRecord> records(String... logins) {
    List<OutputRecord> records = new ArrayList<>();
    for (String login : logins) {
      records.add(
          new OutputRecord(TokenAction.ACTIVATION, login + "@x.test", login, TOKEN, "12345"));
    }
    return records;
  }

  private static List<DeliveryOutcome.Kind> kinds(List<DeliveryOutcome> outcomes) {
    return outcomes.stream().map(DeliveryOutcome::kind).toList();
  }

  @Test
  void the_next_batch_reuses_the_connection_the_previous_one_opened() {
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        CountingProxy proxy = new CountingProxy(smtp.port());
        SmtpDelivery delivery = delivery(proxy.port(), 1)) {
      assertThat(kinds(delivery.deliver(records("a1", "a2", "a3"))))
          .containsOnly(DeliveryOutcome.Kind.DELIVERED);
      assertThat(kinds(delivery.deliver(records("b1", "b2", "b3"))))
          .containsOnly(DeliveryOutcome.Kind.DELIVERED);
      assertThat(smtp.received()).hasSize(6);
      assertThat(proxy.accepted()).isEqualTo(1);
    }
  }

  @Test
  void a_connection_dropped_between_batches_is_replaced_and_costs_no_email_a_retry() {
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        CountingProxy proxy = new CountingProxy(smtp.port());
        SmtpDelivery delivery = delivery(proxy.port(), 1)) {
      delivery.deliver(records("a1", "a2"));
      proxy.dropAll();
      assertThat(kinds(delivery.deliver(records("b1", "b2"))))
          .containsOnly(DeliveryOutcome.Kind.DELIVERED);
      assertThat(smtp.received()).hasSize(4);
      assertThat(proxy.accepted()).isEqualTo(2);
    }
  }

  @Test
  void a_batch_spread_over_connections_keeps_each_recipients_outcome_in_its_place() {
    try (TestSmtpServer smtp =
            new TestSmtpServer(
                    address ->
                        address.startsWith("bounce")
                            ? "550 5.1.1 no such user here"
                            : address.startsWith("later") ? "451 4.3.0 try again later" : null)
                .start();
        CountingProxy proxy = new CountingProxy(smtp.port());
        SmtpDelivery delivery = delivery(proxy.port(), 3)) {
      // Three shares of three: the refusals fall into the second and the third.
      List<DeliveryOutcome> outcomes =
          delivery.deliver(
              records("ok0", "ok1", "ok2", "ok3", "bounce4", "ok5", "ok6", "later7", "ok8"));
      assertThat(kinds(outcomes))
          .containsExactly(
              DeliveryOutcome.Kind.DELIVERED,
              DeliveryOutcome.Kind.DELIVERED,
              DeliveryOutcome.Kind.DELIVERED,
              DeliveryOutcome.Kind.DELIVERED,
              DeliveryOutcome.Kind.PERMANENT_FAILURE,
              DeliveryOutcome.Kind.DELIVERED,
              DeliveryOutcome.Kind.DELIVERED,
              DeliveryOutcome.Kind.TEMPORARY_FAILURE,
              DeliveryOutcome.Kind.DELIVERED);
      assertThat(outcomes.get(4).detail()).startsWith("SMTP 550");
      assertThat(outcomes.get(7).detail()).startsWith("SMTP 451");
      assertThat(smtp.received()).hasSize(7);
      assertThat(proxy.accepted()).isEqualTo(3);
      // The refusals left the connections usable: the next batch opens none.
      delivery.deliver(records("ok9", "ok10", "ok11"));
      assertThat(proxy.accepted()).isEqualTo(3);
    }
  }

  @Test
  void closing_the_delivery_closes_its_kept_connections() {
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        CountingProxy proxy = new CountingProxy(smtp.port())) {
      SmtpDelivery delivery = delivery(proxy.port(), 2);
      delivery.deliver(records("a1", "a2", "a3", "a4"));
      assertThat(proxy.open()).isEqualTo(2);
      delivery.close();
      await().atMost(WAIT).until(() -> proxy.open() == 0);
    }
  }

  @Test
  void a_connection_idle_past_the_limit_is_closed() throws Exception {
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        CountingProxy proxy = new CountingProxy(smtp.port());
        SmtpConnections connections =
            new SmtpConnections(
                Session.getInstance(new Properties()), "smtp", settings(proxy.port(), 1), 200)) {
      Transport transport = connections.take();
      connections.giveBack(transport);
      assertThat(proxy.accepted()).isEqualTo(1);
      await().atMost(WAIT).until(() -> proxy.open() == 0);
    }
  }

  @Test
  void the_collector_loses_and_charges_nothing_when_its_connection_drops_between_batches()
      throws Exception {
    MailroomDb db = MailroomDb.create("mailroom_smtp_reuse");
    try (TestSmtpServer smtp = TestSmtpServer.acceptingAll().start();
        CountingProxy proxy = new CountingProxy(smtp.port());
        RunningCollector c =
            RunningCollector.start(
                RunningCollector.env(
                    db,
                    "MAILROOM_DELIVERY",
                    "smtp",
                    "MAILROOM_SMTP_HOST",
                    "127.0.0.1",
                    "MAILROOM_SMTP_PORT",
                    String.valueOf(proxy.port()),
                    "MAILROOM_SMTP_TLS",
                    "none",
                    "MAILROOM_SMTP_CONNECTIONS",
                    "1",
                    "MAILROOM_BATCH_TIMEOUT",
                    "200"))) {
      db.signUp("a1", "a2", "a3");
      await().atMost(WAIT).until(() -> smtp.received().size() == 3 && db.pending() == 0);
      proxy.dropAll();
      db.signUp("b1", "b2", "b3");
      await().atMost(WAIT).until(() -> smtp.received().size() == 6 && db.pending() == 0);
      assertThat(db.count("SELECT count(*) FROM inbox.mailroom WHERE retry_count > 0")).isZero();
      assertThat(db.count("SELECT count(*) FROM inbox.mailroom_dlq")).isZero();
      assertThat(proxy.accepted()).isEqualTo(2);
      assertThat(c.stop()).isZero();
    }
  }
}
