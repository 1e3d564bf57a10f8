package dev.pginbox.inbox.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Where the server tools of a PostgreSQL major version are. The suite runs its own clusters of the
 * same major version as the server the rest of the tests use, so that a CI run against PostgreSQL
 * 15 crashes and fails over PostgreSQL 15: {@value #BIN_VARIABLE} if set, else {@code
 * /usr/lib/postgresql/<major>/bin} (Debian, Ubuntu), else the directory of the test server's own
 * executable (the embedded server's extracted binaries, read from {@code /proc/<backend>/exe}).
 */
public record PgBinaries(Path bin, int major) {

  public static final String BIN_VARIABLE = "INBOX_CHAOS_PG_BIN";

  private static final Path DEBIAN = Path.of("/usr/lib/postgresql");

  public Path tool(String name) {
    return bin.resolve(name);
  }

  /** Whether every one of the tools is there. */
  public boolean has(String... tools) {
    return Stream.of(tools).allMatch(t -> Files.isExecutable(tool(t)));
  }

  /** The binaries matching the server at {@code jdbcUrl}, with at least the given tools. */
  public static Optional<PgBinaries> matching(
      String jdbcUrl, String user, String password, String... tools) {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    int major;
    Path ownDir;
    try (Connection c = DriverManager.getConnection(jdbcUrl, p);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_setting('server_version_num')::int / 10000, pg_backend_pid()")) {
      rs.next();
      major = rs.getInt(1);
      ownDir = ownExecutableDir(rs.getLong(2)); // while the backend lives
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the test server's version", e);
    }
    String configured = System.getenv(BIN_VARIABLE);
    if (configured != null && !configured.isBlank()) {
      return Optional.of(new PgBinaries(Path.of(configured), major)).filter(b -> b.has(tools));
    }
    List<Path> candidates = List.of(DEBIAN.resolve(String.valueOf(major)).resolve("bin"), ownDir);
    return candidates.stream()
        .map(dir -> new PgBinaries(dir, major))
        .filter(b -> b.has("postgres", "initdb", "pg_ctl"))
        .filter(b -> b.has(tools))
        .findFirst();
  }

  /** The newest Debian-installed major version that has the tools (pg_basebackup, say). */
  public static Optional<PgBinaries> newestInstalled(String... tools) {
    if (!Files.isDirectory(DEBIAN)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(DEBIAN)) {
      return versions
          .filter(v -> v.getFileName().toString().matches("\\d+"))
          .map(v -> new PgBinaries(v.resolve("bin"), Integer.parseInt(v.getFileName().toString())))
          .filter(b -> b.has("postgres", "initdb", "pg_ctl"))
          .filter(b -> b.has(tools))
          .max(Comparator.comparingInt(PgBinaries::major));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static boolean runningAsRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static Path ownExecutableDir(long backendPid) {
    try {
      return Files.readSymbolicLink(Path.of("/proc", String.valueOf(backendPid), "exe"))
          .getParent();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return Path.of("/nonexistent");
    }
  }
}
