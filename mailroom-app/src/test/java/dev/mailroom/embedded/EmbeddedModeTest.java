package dev.mailroom.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.testkit.EmbeddedTestCache;
import dev.mailroom.testkit.RunningCollector;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No MAILROOM_DATABASE_URL: the README's "run the main job" path, including a restart. */
class EmbeddedModeTest {

  @Test
  void starts_installs_generates_a_key_collects_and_keeps_data_across_restarts(@TempDir Path dir)
      throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATA_DIR", dir.toString());
    env.put("MAILROOM_EMBEDDED_PORT", String.valueOf(port));
    env.put("MAILROOM_BATCH_TIMEOUT", "100");
    env.put("XDG_CACHE_HOME", EmbeddedTestCache.XDG_CACHE_HOME.toString());
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/mailroom?user=postgres&password=";

    try (RunningCollector c = RunningCollector.start(env)) {
      await().atMost(Duration.ofSeconds(60)).until(c.collector::isConnected);
      Path passwordFile = dir.resolve("pgpass");
      assertThat(c.stderr())
          .contains(
              "connect with: PGPASSFILE="
                  + passwordFile
                  + " psql -h 127.0.0.1 -p "
                  + port
                  + " -U postgres -d mailroom")
          .contains("GENERATED a new signing key in " + dir.resolve("secret.key"));
      assertThat(Files.getPosixFilePermissions(passwordFile))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      String password = Files.readString(passwordFile).lines().toList().get(1).split(":")[4];
      assertThat(c.stderr()).doesNotContain(password);
      // Any local user used to get in as superuser without a password.
      assertThatThrownBy(
              () ->
                  DriverManager.getConnection(
                          "jdbc:postgresql://127.0.0.1:" + port + "/mailroom?user=postgres")
                      .close())
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(
              () ->
                  DriverManager.getConnection(
                          "jdbc:postgresql://localhost:" + port + "/mailroom?user=postgres")
                      .close())
          .isInstanceOf(SQLException.class);
      url += password;
      Path keyFile = dir.resolve("secret.key");
      assertThat(Files.getPosixFilePermissions(keyFile))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      String keyHex = Files.readString(keyFile).strip();
      assertThat(c.stderr()).doesNotContain(keyHex);
      try (Connection db = DriverManager.getConnection(url);
          Statement s = db.createStatement()) {
        s.execute("INSERT INTO accounts (email, login) VALUES ('e1@x.test', 'e1')");
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> c.records().size() == 1);
      TokenSigner signer = new TokenSigner(HexFormat.of().parseHex(keyHex));
      assertThat(signer.verify(TokenAction.ACTIVATION, c.records().get(0).token(), null)).isTrue();
      assertThat(c.stop()).isZero();
    }

    try (RunningCollector again = RunningCollector.start(env)) {
      await().atMost(Duration.ofSeconds(60)).until(again.collector::isConnected);
      assertThat(again.stderr()).contains("using the generated key in").doesNotContain("GENERATED");
      try (Connection db = DriverManager.getConnection(url);
          Statement s = db.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM accounts WHERE login = 'e1'")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
      assertThat(again.stop()).isZero();
      assertThat(again.records()).isEmpty();
    }
  }
}
