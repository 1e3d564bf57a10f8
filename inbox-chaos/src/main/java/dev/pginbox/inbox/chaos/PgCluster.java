package dev.pginbox.inbox.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL cluster on 127.0.0.1 that the suite starts, stops, crashes and promotes
 * with the server's own tools ({@code initdb}, {@code pg_ctl}, {@code pg_basebackup}). As root it
 * runs them as the {@code postgres} user (PostgreSQL refuses to run as root). Unix sockets are off:
 * every client, {@code pg_ctl} included, comes over TCP.
 */
public final class PgCluster implements AutoCloseable {

  /** {@code pg_ctl stop -m}: fast (clients disconnected, clean) or immediate (a crash). */
  public enum StopMode {
    FAST,
    IMMEDIATE
  }

  private static final long COMMAND_TIMEOUT_SECONDS = 120;

  private final PgBinaries binaries;
  private final Path data;
  private final int port;

  private PgCluster(PgBinaries binaries, Path data, int port) {
    this.binaries = binaries;
    this.data = data;
    this.port = port;
  }

  /** Runs {@code initdb} in an emptied {@code data} and writes the settings; does not start. */
  public static PgCluster create(
      PgBinaries binaries, Path data, int port, Map<String, String> settings) {
    prepareEmpty(data);
    PgCluster cluster = new PgCluster(binaries, data, port);
    cluster.run(
        binaries.tool("initdb"),
        "-D",
        data.toString(),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-locale");
    cluster.appendSettings(settings);
    return cluster;
  }

  /**
   * A streaming-replication standby of {@code primary} (which must be running): {@code
   * pg_basebackup -R} with WAL streamed during the copy; {@code application_name} in its {@code
   * primary_conninfo} is {@code standby}. It asks for no synchronous standby of its own.
   */
  public static PgCluster standbyOf(PgCluster primary, Path data, int port) {
    prepareEmpty(data);
    PgCluster standby = new PgCluster(primary.binaries, data, port);
    standby.run(
        primary.binaries.tool("pg_basebackup"),
        "-h",
        "127.0.0.1",
        "-p",
        String.valueOf(primary.port),
        "-U",
        "postgres",
        "-D",
        data.toString(),
        "-X",
        "stream",
        "-R",
        "-d",
        "application_name=standby");
    // The copied configuration names the primary's synchronous standbys; once promoted, this
    // server has none, and every commit would wait for one forever.
    standby.appendSettings(Map.of("synchronous_standby_names", ""));
    return standby;
  }

  public int port() {
    return port;
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
  }

  public void start() {
    run(
        binaries.tool("pg_ctl"),
        "-D",
        data.toString(),
        "-l",
        data.resolve("server.log").toString(),
        "-w",
        "-t",
        "60",
        "start");
  }

  public void stop(StopMode mode) {
    run(
        binaries.tool("pg_ctl"),
        "-D",
        data.toString(),
        "-m",
        mode.name().toLowerCase(java.util.Locale.ROOT),
        "-w",
        "-t",
        "60",
        "stop");
  }

  public void restart(StopMode mode) {
    stop(mode);
    start();
  }

  /** Ends recovery: the standby becomes a primary. */
  public void promote() {
    run(binaries.tool("pg_ctl"), "-D", data.toString(), "-w", "-t", "60", "promote");
  }

  public boolean running() {
    return Files.exists(data.resolve("postmaster.pid"));
  }

  /** The server log (for failure messages). */
  public String log() {
    try {
      return Files.readString(data.resolve("server.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no server log: " + e.getMessage() + ")";
    }
  }

  /** Crashes the server if it runs (nothing to keep) and deletes its files. */
  @Override
  public void close() {
    if (running()) {
      try {
        stop(StopMode.IMMEDIATE);
      } catch (RuntimeException e) {
        // already gone
      }
    }
    delete(data);
    delete(commandsLog());
  }

  private Path commandsLog() {
    return data.resolveSibling(data.getFileName() + ".commands.log");
  }

  private void appendSettings(Map<String, String> settings) {
    StringBuilder conf = new StringBuilder("\n# inbox-chaos\n");
    conf.append("port = ").append(port).append('\n');
    conf.append("listen_addresses = '127.0.0.1'\n");
    conf.append("unix_socket_directories = ''\n");
    settings.forEach(
        (k, v) -> conf.append(k).append(" = '").append(v.replace("'", "''")).append("'\n"));
    try {
      Files.writeString(
          data.resolve("postgresql.conf"),
          conf,
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void run(Path tool, String... args) {
    List<String> command = new ArrayList<>();
    if (PgBinaries.runningAsRoot()) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(tool.toString());
    command.addAll(List.of(args));
    Path output = commandsLog();
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
              .start();
      if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " exited with "
                + p.exitValue()
                + ":\n"
                + Files.readString(output)
                + "\n"
                + log());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void prepareEmpty(Path data) {
    delete(data);
    try {
      Files.createDirectories(data);
      // The server refuses a data directory others can read; pg_basebackup keeps what it finds.
      Files.setPosixFilePermissions(
          data, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
      if (PgBinaries.runningAsRoot()) {
        new ProcessBuilder("chown", "postgres", data.toString()).inheritIO().start().waitFor();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
