package dev.mailroom.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.testkit.EmbeddedTestCache;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server admits only its own user: a password, over 127.0.0.1, no socket. */
class PostgresClusterTest {

  /** Shared by the tests of this module: extracting once is enough. */
  static final Path CACHE = EmbeddedTestCache.MAILROOM;

  static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static Connection connect(int port, String user, String password) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    if (password != null) {
      props.setProperty("password", password);
    }
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", props);
  }

  /**
   * The default port (54329) lies in Linux's range for outgoing connections, so another program can
   * hold it: the error says which port and which setting moves the server elsewhere.
   */
  @Test
  void a_port_another_program_listens_on_is_a_clear_error_naming_the_setting(@TempDir Path tmp)
      throws Exception {
    Path binaries = PostgresBinaries.prepare(CACHE);
    Path dataDir = PrivateDirectory.create(tmp.resolve("data"));
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> PostgresCluster.start(binaries, dataDir, port).close())
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith(
              "127.0.0.1:"
                  + port
                  + " is in use by another program: set MAILROOM_EMBEDDED_PORT to a free port");
    }
    // The data directory is fine and unlocked: the next start on a free port works.
    int free = freePort();
    try (PostgresCluster cluster = PostgresCluster.start(binaries, dataDir, free);
        Connection c = connect(free, "postgres", ServerPassword.read(dataDir).orElseThrow())) {
      assertThat(c.isValid(5)).isTrue();
    }
  }

  @Test
  void only_the_password_from_the_private_file_lets_anyone_in(@TempDir Path tmp) throws Exception {
    Path dataDir = PrivateDirectory.create(tmp.resolve("data"));
    int port = freePort();
    Path binaries = PostgresBinaries.prepare(CACHE);
    try (PostgresCluster cluster = PostgresCluster.start(binaries, dataDir, port)) {
      String password = ServerPassword.read(dataDir).orElseThrow();

      assertThatThrownBy(() -> connect(port, "postgres", null).close())
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> connect(port, "postgres", "wrong").close())
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("password authentication failed");
      assertThatThrownBy(() -> connect(port, "nobody", null).close())
          .isInstanceOf(SQLException.class);

      try (Connection c = connect(port, "postgres", password);
          Statement s = c.createStatement()) {
        assertThat(setting(s, "listen_addresses")).isEqualTo("127.0.0.1");
        assertThat(setting(s, "unix_socket_directories")).isEmpty();
        assertThat(setting(s, "synchronous_commit")).isEqualTo("on");
        assertThat(setting(s, "autovacuum_naptime")).isEqualTo("1s");
        try (ResultSet rs =
            s.executeQuery(
                "SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'postgres'")) {
          rs.next();
          assertThat(rs.getBoolean(1)).isTrue();
        }
      }

      assertThat(Files.getPosixFilePermissions(ServerPassword.file(dataDir)))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      assertThat(Files.getPosixFilePermissions(dataDir))
          .isEqualTo(PosixFilePermissions.fromString("rwx------"));
      assertThat(Files.readString(dataDir.resolve(PostgresCluster.LOG_FILE)))
          .doesNotContain(password);
      try (var files = Files.list(dataDir)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .noneMatch(name -> name.startsWith(".initdb-") || name.startsWith(".pgpass-"));
      }
    }
  }

  @Test
  void a_second_start_on_the_same_data_keeps_password_and_data(@TempDir Path tmp) throws Exception {
    Path dataDir = PrivateDirectory.create(tmp.resolve("data"));
    int port = freePort();
    Path binaries = PostgresBinaries.prepare(CACHE);
    String password;
    try (PostgresCluster cluster = PostgresCluster.start(binaries, dataDir, port)) {
      password = ServerPassword.read(dataDir).orElseThrow();
      try (Connection c = connect(port, "postgres", password);
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE kept (x int)");
      }
      assertThatThrownBy(() -> PostgresCluster.start(binaries, dataDir, freePort()))
          .hasMessageContaining("another mailroom is running on " + dataDir);
    }
    try (PostgresCluster again = PostgresCluster.start(binaries, dataDir, port);
        Connection c = connect(port, "postgres", password);
        Statement s = c.createStatement()) {
      assertThat(ServerPassword.read(dataDir)).contains(password);
      s.execute("SELECT * FROM kept");
    }
  }

  @Test
  void a_data_directory_that_trusted_every_local_user_gets_a_password(@TempDir Path tmp)
      throws Exception {
    Path dataDir = PrivateDirectory.create(tmp.resolve("data"));
    int port = freePort();
    // What earlier versions left behind: initdb -A trust, TCP and a socket open to everyone.
    try (EmbeddedPostgres old =
            EmbeddedPostgres.builder()
                .setDataDirectory(dataDir.resolve("pgdata"))
                .setCleanDataDirectory(false)
                .setPort(port)
                .start();
        Connection c = old.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE kept (x int)");
    }
    try (PostgresCluster cluster =
        PostgresCluster.start(PostgresBinaries.prepare(CACHE), dataDir, port)) {
      assertThatThrownBy(() -> connect(port, "postgres", null).close())
          .isInstanceOf(SQLException.class);
      try (Connection c = connect(port, "postgres", ServerPassword.read(dataDir).orElseThrow());
          Statement s = c.createStatement()) {
        s.execute("SELECT * FROM kept");
      }
    }
  }

  @Test
  void a_password_file_others_can_read_is_refused(@TempDir Path tmp) throws Exception {
    Path dataDir = PrivateDirectory.create(tmp.resolve("data"));
    ServerPassword.write(dataDir, ServerPassword.generate());
    Files.setPosixFilePermissions(
        ServerPassword.file(dataDir), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> ServerPassword.read(dataDir))
        .hasMessageContaining("may be read or changed by other users")
        .hasMessageContaining("chmod 600");
  }

  private static String setting(Statement s, String name) throws SQLException {
    try (ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
