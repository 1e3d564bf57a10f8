package dev.mailroom.embedded;

import dev.mailroom.config.ConnectionSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * The zero-configuration PostgreSQL of embedded mode: a PostgreSQL 18 server from the io.zonky
 * binaries, with its data directory kept (not wiped) between runs, listening on localhost only, and
 * a {@code mailroom} database.
 */
public final class EmbeddedDatabase implements AutoCloseable {

  public static final String DATABASE = "mailroom";

  private final EmbeddedPostgres server;
  private final Path dataDir;
  private final int port;

  private EmbeddedDatabase(EmbeddedPostgres server, Path dataDir, int port) {
    this.server = server;
    this.dataDir = dataDir;
    this.port = port;
  }

  public static EmbeddedDatabase start(Path dataDir, int port) throws IOException, SQLException {
    Path pgData = dataDir.resolve("pgdata").toAbsolutePath();
    Files.createDirectories(pgData.getParent());
    EmbeddedPostgres server =
        EmbeddedPostgres.builder()
            .setDataDirectory(pgData)
            .setCleanDataDirectory(false)
            .setPort(port)
            // Real data: commits are durable (zonky's test default turns this off).
            .setServerConfig("synchronous_commit", "on")
            .setServerConfig("listen_addresses", "localhost")
            .start();
    try (Connection c = server.getPostgresDatabase().getConnection();
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
    } catch (SQLException e) {
      server.close();
      throw e;
    }
    return new EmbeddedDatabase(server, dataDir, port);
  }

  public ConnectionSettings settings() {
    Properties props = new Properties();
    props.setProperty("user", "postgres");
    props.setProperty("ApplicationName", "mailroom");
    return new ConnectionSettings(
        "jdbc:postgresql://localhost:" + port + "/" + DATABASE,
        props,
        List.of("localhost"),
        List.of(port),
        DATABASE,
        "postgres",
        "disable");
  }

  public String psqlCommand() {
    return "psql -h localhost -p " + port + " -U postgres -d " + DATABASE;
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
