package dev.mailroom.embedded;

import dev.mailroom.config.ConnectionSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The zero-configuration PostgreSQL of embedded mode: a PostgreSQL 18 server from the binaries in
 * the jar, with its data kept between runs in the data directory, and a {@code mailroom} database.
 * Only the running user gets in: the data directory and the extracted binaries are private (mode
 * 700), the server takes SCRAM password logins on 127.0.0.1 only and has no Unix-domain socket, and
 * its random password is kept in {@code <data dir>/pgpass} (mode 600), never printed.
 */
public final class EmbeddedDatabase implements AutoCloseable {

  public static final String DATABASE = "mailroom";
  private static final String HOST = "127.0.0.1";

  private final PostgresCluster cluster;
  private final Path dataDir;
  private final int port;
  private final String password;

  private EmbeddedDatabase(PostgresCluster cluster, Path dataDir, int port, String password) {
    this.cluster = cluster;
    this.dataDir = dataDir;
    this.port = port;
    this.password = password;
  }

  /**
   * Starts the server of {@code dataDir} on 127.0.0.1:{@code port}, first extracting the binaries
   * into the private cache for {@code env} ({@link #binariesCache}) if they are not there yet.
   */
  public static EmbeddedDatabase start(Path dataDir, int port, Map<String, String> env)
      throws IOException, SQLException {
    Path data = PrivateDirectory.create(dataDir);
    Path binaries = PostgresBinaries.prepare(binariesCache(env, data));
    PostgresCluster cluster = PostgresCluster.start(binaries, data, port);
    try {
      String password = ServerPassword.read(data).orElseThrow();
      createDatabase(port, password);
      return new EmbeddedDatabase(cluster, data, port, password);
    } catch (SQLException | IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * Where the extracted binaries live: {@code $XDG_CACHE_HOME/mailroom}, else {@code
   * ~/.cache/mailroom}, else (no home) inside the data directory.
   */
  static Path binariesCache(Map<String, String> env, Path dataDir) {
    String xdg = env.get("XDG_CACHE_HOME");
    if (xdg != null && Path.of(xdg).isAbsolute()) {
      return Path.of(xdg, "mailroom");
    }
    String home = env.get("HOME");
    if (home != null && Path.of(home).isAbsolute()) {
      return Path.of(home, ".cache", "mailroom");
    }
    return dataDir.resolve("binaries");
  }

  private static void createDatabase(int port, String password) throws SQLException {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://" + HOST + ":" + port + "/postgres", credentials(password));
        PreparedStatement exists =
            c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      exists.setString(1, DATABASE);
      try (ResultSet rs = exists.executeQuery()) {
        if (!rs.next()) {
          try (Statement create = c.createStatement()) {
            create.execute("CREATE DATABASE " + DATABASE);
          }
        }
      }
    }
  }

  private static Properties credentials(String password) {
    Properties props = new Properties();
    props.setProperty("user", ServerPassword.USER);
    props.setProperty("password", password);
    props.setProperty("ApplicationName", "mailroom");
    return props;
  }

  public ConnectionSettings settings() {
    return settings(port, password);
  }

  /**
   * How the operator commands reach the server of a running collector: the password comes from the
   * data directory's password file, which only the collector's user can read.
   */
  public static ConnectionSettings clientSettings(Path dataDir, int port) throws IOException {
    Path data = dataDir.toAbsolutePath().normalize();
    String password =
        ServerPassword.read(data)
            .orElseThrow(
                () ->
                    new IOException(
                        "no embedded server password in "
                            + ServerPassword.file(data)
                            + ": start the collector first, with the same MAILROOM_DATA_DIR, or"
                            + " set MAILROOM_DATABASE_URL"));
    return settings(port, password);
  }

  private static ConnectionSettings settings(int port, String password) {
    return new ConnectionSettings(
        "jdbc:postgresql://" + HOST + ":" + port + "/" + DATABASE,
        credentials(password),
        List.of(HOST),
        List.of(port),
        DATABASE,
        ServerPassword.USER,
        "disable");
  }

  /** The {@code connect with:} command: the password stays in its file. */
  public String psqlCommand() {
    return "PGPASSFILE="
        + ServerPassword.file(dataDir)
        + " psql -h "
        + HOST
        + " -p "
        + port
        + " -U "
        + ServerPassword.USER
        + " -d "
        + DATABASE;
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() throws IOException {
    cluster.close();
  }
}
