package dev.mailroom.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.TokenAction;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What reaches SES: a recording HTTP endpoint stands in for it (real SES accepts {@code "Name"
 * <mailbox>} and would deliver to the mailbox), so the test sees every request the SDK sends. It
 * answers every call with a server error, which makes the good entries temporary failures: what
 * matters here is what was asked.
 */
class SesRecipientTest {

  @Test
  void an_address_that_is_not_one_bare_address_never_reaches_ses() throws Exception {
    System.setProperty("aws.accessKeyId", "test");
    System.setProperty("aws.secretAccessKey", "test");
    List<String> bodies = Collections.synchronizedList(new ArrayList<>());
    HttpServer endpoint =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    endpoint.createContext(
        "/",
        exchange -> {
          bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          byte[] answer = "{\"message\":\"recorded\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(500, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    endpoint.start();
    SesSettings settings =
        new SesSettings(
            "mailroom@app.test",
            "default",
            URI.create("http://127.0.0.1:" + endpoint.getAddress().getPort()));
    try (SesDelivery ses = new SesDelivery(settings, new MailTemplates("https://app.test", null))) {
      List<DeliveryOutcome> outcomes =
          ses.deliver(
              List.of(
                  record(OneRecipientPerTokenTest.DISPLAY_NAME),
                  record(OneRecipientPerTokenTest.GROUP),
                  record("fine@x.test")));
      assertThat(outcomes.subList(0, 2))
          .allSatisfy(
              o -> {
                assertThat(o.kind()).isEqualTo(DeliveryOutcome.Kind.PERMANENT_FAILURE);
                assertThat(o.detail()).startsWith("invalid address: ");
              });
      assertThat(outcomes.get(2).kind()).isEqualTo(DeliveryOutcome.Kind.TEMPORARY_FAILURE);
      assertThat(bodies).isNotEmpty().noneMatch(b -> b.contains("evil.test"));
      assertThat(bodies).anyMatch(b -> b.contains("fine@x.test"));
    } finally {
      endpoint.stop(0);
    }
  }

  private static OutputRecord record(String email) {
    return new OutputRecord(TokenAction.ACTIVATION, email, "someone", "A".repeat(86), "12345");
  }
}
