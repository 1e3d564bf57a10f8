package dev.mailroom.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster (the machine's PostgreSQL 15 server binaries, initdb and pg_ctl)
 * that listens on a Unix-domain socket in a private temporary directory and on no TCP address at
 * all ({@code listen_addresses = ''}): a client that falls back to TCP cannot reach it. As root the
 * server runs as the {@code postgres} user (PostgreSQL refuses root), as {@code .ci/postgres15.sh}
 * does. Trust authentication, reachable only through that directory. Closing stops the server and
 * deletes the directory.
 */
public final class SocketOnlyPostgres implements AutoCloseable {

  private static final Path BIN =
      Path.of(System.getenv().getOrDefault("PG15_BIN", "/usr/lib/postgresql/15/bin"));
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  /** The directory holding the socket ({@code .s.PGSQL.<port>}), the data and the logs. */
  public final Path directory;

  public final int port;
  private final Path data;

  private SocketOnlyPostgres(Path directory, int port) {
    this.directory = directory;
    this.port = port;
    this.data = directory.resolve("data");
  }

  /** Starts one; the test is skipped (with the reason) where PostgreSQL 15 is not installed. */
  public static SocketOnlyPostgres start(int port) throws IOException, InterruptedException {
    assumeTrue(
        Files.isExecutable(BIN.resolve("initdb")) && Files.isExecutable(BIN.resolve("pg_ctl")),
        "SKIP: no PostgreSQL server binaries in " + BIN + " (apt-get install postgresql-15)");
    // Short: a socket path has at most 107 bytes.
    SocketOnlyPostgres pg =
        new SocketOnlyPostgres(Files.createTempDirectory(Path.of("/tmp"), "mr-sock-"), port);
    try {
      if (ROOT) {
        UserPrincipal postgres =
            pg.directory
                .getFileSystem()
                .getUserPrincipalLookupService()
                .lookupPrincipalByName("postgres");
        Files.setOwner(pg.directory, postgres);
      }
      pg.run(
          "initdb",
          "-D",
          pg.data.toString(),
          "-U",
          "postgres",
          "--auth=trust",
          "-E",
          "UTF8",
          "--locale=C.UTF-8",
          "-N");
      pg.run(
          "pg_ctl",
          "-D",
          pg.data.toString(),
          "-l",
          pg.directory.resolve("server.log").toString(),
          "-w",
          "-o",
          "-p " + port + " -k " + pg.directory + " -c listen_addresses='' -c fsync=off",
          "start");
      return pg;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      pg.close();
      throw e;
    }
  }

  /** libpq key/value conninfo through the socket. */
  public String conninfo() {
    return "host=" + directory + " port=" + port + " user=postgres dbname=postgres";
  }

  private void run(String tool, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    if (ROOT) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(BIN.resolve(tool).toString());
    command.addAll(List.of(args));
    Path log = directory.resolve(tool + ".out");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(tool + " did not finish in 120 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(tool + " failed (" + p.exitValue() + "): " + Files.readString(log));
    }
  }

  @Override
  public void close() {
    try {
      if (Files.exists(data.resolve("postmaster.pid"))) {
        run("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "stop");
      }
    } catch (IOException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("cannot stop the server in " + directory, e);
    } finally {
      delete(directory);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot delete " + dir, e);
    }
  }
}
