package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.schema.SchemaInstaller;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole server restart under a running collector (the original exited after one failed
 * reconnect): it must reconnect by itself and lose nothing. Uses a private embedded server because
 * the shared test server must not be restarted.
 */
class DatabaseRestartTest {

  private static EmbeddedPostgres startServer(Path dir, int port) throws Exception {
    return EmbeddedPostgres.builder()
        .setDataDirectory(dir)
        .setCleanDataDirectory(false)
        .setPort(port)
        .start();
  }

  private static void signUp(EmbeddedPostgres pg, String... logins) throws Exception {
    try (Connection c = pg.getPostgresDatabase().getConnection();
        PreparedStatement s =
            c.prepareStatement("INSERT INTO accounts (email, login) VALUES (?, ?)")) {
      for (String login : logins) {
        s.setString(1, login + "@x.test");
        s.setString(2, login);
        s.executeUpdate();
      }
    }
  }

  @Test
  void server_restart_reconnects_and_loses_nothing(@TempDir Path dir) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    EmbeddedPostgres pg = startServer(dir.resolve("pgdata"), port);
    try {
      SchemaInstaller.install(pg.getPostgresDatabase(), "mailroom", "token_insert");
      Map<String, String> env = new HashMap<>();
      env.put("MAILROOM_DATABASE_URL", "postgresql://postgres@localhost:" + port + "/postgres");
      env.put("MAILROOM_SECRET_KEY", "cafebabe".repeat(8));
      env.put("MAILROOM_BATCH_TIMEOUT", "100");
      env.put("MAILROOM_POLL_INTERVAL", "200");
      try (RunningCollector c = RunningCollector.start(env)) {
        signUp(pg, "r1", "r2");
        await().atMost(Duration.ofSeconds(60)).until(() -> c.records().size() == 2);

        pg.close();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> c.stderr().contains("WARN: connection lost"));
        pg = startServer(dir.resolve("pgdata"), port);
        signUp(pg, "r3", "r4");

        await().atMost(Duration.ofSeconds(90)).until(() -> c.records().size() >= 4);
        assertThat(c.records())
            .extracting(SenderProtocol.Parsed::login)
            .containsExactly("r1", "r2", "r3", "r4");
        assertThat(c.stop()).isZero();
      }
    } finally {
      pg.close();
    }
  }
}
