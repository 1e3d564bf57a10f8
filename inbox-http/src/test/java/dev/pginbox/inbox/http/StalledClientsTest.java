package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.testing.StalledConnections;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Clients that never finish a request cannot keep the server from answering anybody else. */
class StalledClientsTest extends HttpTestSupport {

  private static final Duration ANSWER = Duration.ofSeconds(1);

  @BeforeAll
  static void setUp() {
    installDatabase("inbox_http_stalled");
    manager.createInbox("orders");
  }

  @Test
  void health_and_pages_answer_while_64_idle_and_64_slowloris_connections_are_open()
      throws Exception {
    try (InboxHttp.Running server = InboxHttp.builder(manager).build().start(loopback());
        StalledConnections stalled = StalledConnections.open(server.address(), 64, 64)) {
      InetSocketAddress address = server.address();
      assertThat(StalledConnections.status(address, "/health/live", ANSWER)).isEqualTo(200);
      assertThat(StalledConnections.status(address, "/health/ready", ANSWER)).isEqualTo(200);
      assertThat(StalledConnections.status(address, "/metrics", ANSWER)).isEqualTo(200);
      assertThat(StalledConnections.status(address, "/inbox/orders", ANSWER)).isEqualTo(200);
    }
  }
}
