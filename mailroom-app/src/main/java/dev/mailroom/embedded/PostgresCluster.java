package dev.mailroom.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
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
  private static final int MAX_OUTPUT_BYTES = 8192;

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
      cluster.run(dataDir, port);
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
      run(
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
      run(
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

  private void run(Path dataDir, int port) throws IOException {
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
      run(
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
        run(List.of(bin("pg_ctl"), "status", "-D", pgdata.toString()), null);
      } catch (IOException notRunning) {
        return;
      }
      stop();
    }
  }

  private void stop() throws IOException {
    run(
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

  /** Runs a PostgreSQL tool; a non-zero exit becomes an exception with (bounded) output. */
  private static void run(List<String> command, String input) throws IOException {
    List<String> full = new ArrayList<>();
    if (PrivateDirectory.currentUid() == 0) {
      // PostgreSQL refuses to run as root. In a new user namespace root is mapped to no one
      // (the overflow uid), while the files stay root's: the server runs, with no privilege.
      full.addAll(List.of("unshare", "--user"));
    }
    full.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("PG"));
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IOException(
          "cannot run "
              + full.get(0)
              + " (PostgreSQL does not run as root; run the mailroom as"
              + " another user or set MAILROOM_DATABASE_URL): "
              + e.getMessage(),
          e);
    }
    try (OutputStream stdin = process.getOutputStream()) {
      if (input != null) {
        stdin.write(input.getBytes(StandardCharsets.UTF_8));
      }
    }
    String output = readBounded(process.getInputStream());
    int exit;
    try {
      exit = process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroy();
      throw new IOException("interrupted while running " + command.get(0), e);
    }
    if (exit != 0) {
      throw new IOException(
          Path.of(command.get(0)).getFileName()
              + " "
              + command.get(1)
              + " failed (exit "
              + exit
              + "): "
              + output.strip());
    }
  }

  private static String readBounded(InputStream in) throws IOException {
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    byte[] buffer = new byte[4096];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      int room = MAX_OUTPUT_BYTES - kept.size();
      kept.write(buffer, 0, Math.max(0, Math.min(n, room)));
    }
    return kept.toString(StandardCharsets.UTF_8);
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
