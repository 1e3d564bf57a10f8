package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.config.DataSources;
import dev.mailroom.config.DatabaseUrl;
import dev.mailroom.schema.SchemaInstaller;
import dev.mailroom.testkit.RunningCollector;
import dev.mailroom.testkit.SenderProtocol;
import dev.mailroom.testkit.SocketOnlyPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * MAILROOM_DATABASE_URL with a socket directory as host connects through the socket, as libpq does,
 * against a server that has no TCP address at all. (It used to switch to TCP localhost with a
 * warning, which cannot reach such a server, or worse, reaches another one.)
 */
class UnixSocketTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** From this test's own port range: only the socket file's name, no TCP port is opened. */
  private static final int PORT = 56201;

  @Test
  void a_socket_directory_host_reaches_a_server_without_tcp_in_every_url_form() throws Exception {
    try (SocketOnlyPostgres pg = SocketOnlyPostgres.start(PORT)) {
      for (String url :
          List.of(
              pg.conninfo(),
              "postgresql:///postgres?host=" + pg.directory + "&port=" + PORT + "&user=postgres",
              "postgresql://postgres@"
                  + pg.directory.toString().replace("/", "%2F")
                  + ":"
                  + PORT
                  + "/postgres")) {
        DataSource ds = DataSources.of(DatabaseUrl.parse(url, Map.of()));
        try (Connection c = ds.getConnection();
            Statement s = c.createStatement();
            ResultSet rs =
                s.executeQuery(
                    "SELECT inet_server_addr() IS NULL, current_setting('listen_addresses')")) {
          rs.next();
          assertThat(rs.getBoolean(1)).as("a Unix-domain socket connection: %s", url).isTrue();
          assertThat(rs.getString(2)).isEmpty();
        }
      }
    }
  }

  @Test
  void the_collector_listens_and_sends_through_the_socket() throws Exception {
    try (SocketOnlyPostgres pg = SocketOnlyPostgres.start(PORT + 1)) {
      DataSource ds = DataSources.of(DatabaseUrl.parse(pg.conninfo(), Map.of()));
      SchemaInstaller.install(ds, "mailroom", "token_insert");
      Map<String, String> env = new HashMap<>();
      env.put("MAILROOM_DATABASE_URL", pg.conninfo());
      env.put("MAILROOM_SECRET_KEY", "cafebabe".repeat(8));
      env.put("MAILROOM_BATCH_TIMEOUT", "100");
      try (RunningCollector c = RunningCollector.start(env)) {
        await().atMost(WAIT).until(c.collector::isConnected);
        assertThat(c.stderr())
            .contains("connecting to host=" + pg.directory + " port=" + (PORT + 1))
            .doesNotContain("localhost");
        try (Connection conn = ds.getConnection();
            Statement s = conn.createStatement()) {
          s.execute("INSERT INTO accounts (email, login) VALUES ('u1@x.test', 'u1')");
        }
        await().atMost(WAIT).until(() -> c.records().size() == 1);
        assertThat(c.records()).extracting(SenderProtocol.Parsed::login).containsExactly("u1");
        assertThat(c.stop()).isZero();
      }
    }
  }
}
