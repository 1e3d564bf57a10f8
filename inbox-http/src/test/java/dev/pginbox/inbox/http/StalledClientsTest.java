package dev.pginbox.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.http.server.HttpLimits;
import dev.pginbox.inbox.testsupport.StalledConnections;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Clients that never finish a request cannot keep the server from answering anybody else. */
class StalledClientsTest extends HttpTestSupport {

  /** /health/live asks nobody: it answers at once unless the server is stalled. */
  private static final Duration ANSWER = Duration.ofSeconds(1);

  /**
   * The other pages ask the database, which on a busy test machine may take seconds; a stalled
   * server would not answer them at all (its workers wait on the stalled clients for ever).
   */
  private static final Duration DATABASE_ANSWER = Duration.ofSeconds(30);

  private static final List<String> PAGES = List.of("/health/ready", "/metrics", "/inbox/orders");

  @BeforeAll
  static void setUp() {
    installDatabase("inbox_http_stalled");
    manager.createInbox("orders");
  }

  @Test
  void health_and_pages_answer_while_64_idle_and_64_slowloris_connections_are_open()
      throws Exception {
    // Every stalled connection stays open while the pages are asked for: none is closed to make
    // room, so none of them holds a worker thread either.
    HttpLimits roomy =
        HttpLimits.builder()
            .headerTimeout(Duration.ofMinutes(1))
            .maxWaitingPerAddress(1000)
            .maxConnections(1000)
            .build();
    try (InboxHttp.Running server =
        InboxHttp.builder(manager).limits(roomy).build().start(loopback())) {
      InetSocketAddress address = server.address();
      // The first answer of a cold JVM may take longer than the deadline by itself.
      assertThat(StalledConnections.status(address, "/health/live", DATABASE_ANSWER))
          .isEqualTo(200);
      try (StalledConnections stalled = StalledConnections.open(address, 64, 64)) {
        assertThat(StalledConnections.status(address, "/health/live", ANSWER)).isEqualTo(200);
        for (String page : PAGES) {
          assertThat(StalledConnections.status(address, page, DATABASE_ANSWER))
              .as(page)
              .isEqualTo(200);
        }
        assertThat(stalled.closedByServer()).isZero();
      }
    }
  }
}
