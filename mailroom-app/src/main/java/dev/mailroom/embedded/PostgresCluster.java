package dev.mailroom.embedded;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

/**
 * One PostgreSQL data directory ({@code <data dir>/pgdata}) run by {@code pg_ctl}, locked down:
 * SCRAM password logins only, on 127.0.0.1 only, no Unix-domain socket. The password lives in
 * {@link ServerPassword}'s file; {@code pg_hba.conf} is rewritten at every start, so an older data
 * directory that trusted every local user is closed too.
 */
final class PostgresCluster implements AutoCloseable {

  static final String LOG_FILE = "postgres.log";

  private static final String HBA =
      "# Written by the mailroom at every start: SCRAM password logins over 127.0.0.1 only.\n"
          + "# TYPE  DATABASE  USER  ADDRESS       METHOD\n"
          + "host    all       all   127.0.0.1/32  scram-sha-256\n";

  private final Path binaries;
  private final Path pgdata;
  private final FileChannel lockFile;
  private final FileLock lock;

  private PostgresCluster(Path binaries, Path pgdata, FileChannel lockFile, FileLock lock) {
    this.binaries = binaries;
    this.pgdata = pgdata;
    this.lockFile = lockFile;
    this.lock = lock;
  }

  /**
   * Initializes the data directory if needed, sets the password of a data directory that has none
   * yet, and starts the server on 127.0.0.1:{@code port}. Returns once it accepts connections.
   */
  static PostgresCluster start(Path binaries, Path dataDir, int port) throws IOException {
    FileChannel lockFile =
        FileChannel.open(
            dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = lockFile.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this process: another embedded database on the same directory
    } catch (IOException | RuntimeException e) {
      lockFile.close();
      throw e;
    }
    if (lock == null) {
      lockFile.close();
      throw new IOException(
          "another mailroom is running on " + dataDir + " (set MAILROOM_DATA_DIR to another one)");
    }
    PostgresCluster cluster =
        new PostgresCluster(binaries, dataDir.resolve("pgdata"), lockFile, lock);
    try {
      cluster.prepare(dataDir);
      cluster.startServer(dataDir, port);
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.releaseLock();
      throw e;
    }
  }

  private void prepare(Path dataDir) throws IOException {
    String stored = ServerPassword.read(dataDir).orElse(null);
    if (!Files.exists(pgdata.resolve("PG_VERSION"))) {
      String password = stored == null ? ServerPassword.generate() : stored;
      if (stored == null) {
        ServerPassword.write(dataDir, password);
      }
      initdb(dataDir, password);
    } else if (stored == null) {
      // A data directory from a version that trusted local connections: give the superuser a
      // password (single-user mode needs no login), then record it.
      String password = ServerPassword.generate();
      stopOrphan();
      PostgresTool.run(
          List.of(bin("postgres"), "--single", "-D", pgdata.toString(), "postgres"),
          "ALTER ROLE " + ServerPassword.USER + " PASSWORD '" + password + "';\n");
      ServerPassword.write(dataDir, password);
    }
    Path hba = pgdata.resolve("pg_hba.conf");
    Path temporary = pgdata.resolve("pg_hba.conf.tmp");
    Files.writeString(temporary, HBA, StandardCharsets.US_ASCII);
    Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
    Files.move(temporary, hba, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private void initdb(Path dataDir, String password) throws IOException {
    if (Files.exists(pgdata)) {
      try (Stream<Path> children = Files.list(pgdata)) {
        if (children.findAny().isPresent()) {
          throw new IOException(
              pgdata + " exists but is not a PostgreSQL data directory: move it away");
        }
      }
      Files.delete(pgdata);
    }
    Path initializing = dataDir.resolve("pgdata.init");
    deleteTree(initializing);
    Path passwordFile =
        Files.createTempFile(
            dataDir,
            ".initdb-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.writeString(passwordFile, password + "\n", StandardCharsets.US_ASCII);
      PostgresTool.run(
          List.of(
              bin("initdb"),
              "-D",
              initializing.toString(),
              "-U",
              ServerPassword.USER,
              "--auth=scram-sha-256",
              "--pwfile=" + passwordFile,
              "--encoding=UTF8",
              "--no-locale"),
          null);
    } finally {
      Files.deleteIfExists(passwordFile);
    }
    // Visible only once complete: an initdb killed half-way is redone by the next start.
    Files.move(initializing, pgdata, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private void startServer(Path dataDir, int port) throws IOException {
    stopOrphan();
    String options =
        String.join(
            " ",
            "-c listen_addresses=127.0.0.1",
            "-c port=" + port,
            // No Unix-domain socket: it would be another way in, in a directory others can reach.
            "-c unix_socket_directories=''",
            "-c password_encryption=scram-sha-256",
            // Real data: commits are durable.
            "-c synchronous_commit=on",
            // Autovacuum looks at the tables every second, not every minute: claimed tokens stay
            // in the claim index, in front of every claim, until vacuum removes them (an ordered
            // drain of 2,000,000 messages claimed 1.6-1.8x as many in 15 s; docs/operations.md).
            "-c autovacuum_naptime=1s",
            "-c timezone=UTC");
    try {
      PostgresTool.run(
          List.of(
              bin("pg_ctl"),
              "start",
              "-D",
              pgdata.toString(),
              "-l",
              dataDir.resolve(LOG_FILE).toString(),
              "-w",
              "-t",
              "60",
              "-o",
              options),
          null);
    } catch (IOException e) {
      String log = tail(dataDir.resolve(LOG_FILE));
      // The server's own hint ("Is another postmaster already running") names no setting; the
      // default port lies in Linux's range for outgoing connections, so any program may hold it.
      String cause =
          log.contains("Address already in use")
              ? "127.0.0.1:"
                  + port
                  + " is in use by another program: set MAILROOM_EMBEDDED_PORT to a free port\n"
              : "";
      throw new IOException(cause + e.getMessage() + "\n" + log, e);
    }
  }

  /** A server left running by a collector that was killed (this process holds the lock now). */
  private void stopOrphan() throws IOException {
    if (Files.exists(pgdata.resolve("postmaster.pid"))) {
      try {
        PostgresTool.run(List.of(bin("pg_ctl"), "status", "-D", pgdata.toString()), null);
      } catch (IOException notRunning) {
        return;
      }
      stop();
    }
  }

  private void stop() throws IOException {
    PostgresTool.run(
        List.of(bin("pg_ctl"), "stop", "-D", pgdata.toString(), "-m", "fast", "-w", "-t", "60"),
        null);
  }

  @Override
  public void close() throws IOException {
    try {
      stop();
    } finally {
      releaseLock();
    }
  }

  private void releaseLock() throws IOException {
    try {
      lock.release();
    } finally {
      lockFile.close();
    }
  }

  private String bin(String name) {
    return binaries.resolve("bin").resolve(name).toString();
  }

  /** The end of the server log (its last 2 KiB: the log grows across runs). */
  private static String tail(Path log) {
    try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
      channel.position(Math.max(0, channel.size() - 2048));
      String end =
          new String(Channels.newInputStream(channel).readAllBytes(), StandardCharsets.UTF_8);
      return "end of " + log + ":\n" + end.strip();
    } catch (IOException | RuntimeException e) {
      return "(see " + log + ")";
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
