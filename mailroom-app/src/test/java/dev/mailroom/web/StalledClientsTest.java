package dev.mailroom.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.verify.SigningKeys;
import dev.mailroom.verify.TokenVerifier;
import dev.pginbox.inbox.testsupport.StalledConnections;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code mailroom serve} keeps answering while clients hold connections without a request. */
class StalledClientsTest {

  static final byte[] KEY = HexFormat.of().parseHex("cafebabe".repeat(8));
  static MailroomDb db;

  @BeforeAll
  static void database() {
    db = MailroomDb.create("mailroom_stalled");
  }

  @Test
  void the_recovery_page_answers_while_64_idle_and_64_slowloris_connections_are_open()
      throws Exception {
    try (VerificationServer server =
            VerificationServer.start(
                new InetSocketAddress("127.0.0.1", 0),
                new TokenVerifier(db.dataSource, new SigningKeys(KEY, List.of())),
                "");
        StalledConnections stalled =
            StalledConnections.open(new InetSocketAddress("127.0.0.1", server.port()), 64, 64)) {
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
      assertThat(StalledConnections.status(address, "/recover?token=x", Duration.ofSeconds(1)))
          .isEqualTo(200);
      // The defaults keep 16 waiting connections per address: the oldest made room.
      assertThat(stalled.closedByServer()).isGreaterThanOrEqualTo(128 - 16);
    }
  }
}
