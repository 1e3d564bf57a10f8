package dev.mailroom.testkit;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;

/**
 * The npm package aws-ses-v2-local, a local SES v2 endpoint: installed once with npm into a cache
 * directory (MAILROOM_SES_EMULATOR_DIR, default ~/.cache/mailroom-test/aws-ses-v2-local) and run
 * with node on 127.0.0.1. Tests using it are skipped, saying why, only where node or npm is
 * missing.
 */
public final class SesEmulator implements AutoCloseable {

  public static final String VERSION = "2.10.2";
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);

  private final Path cli;
  private final int port;
  private Process process;

  private SesEmulator(Path cli, int port) {
    this.cli = cli;
    this.port = port;
  }

  /** Installs (if needed) and starts the emulator, or skips the test when npm is unavailable. */
  public static SesEmulator start() throws Exception {
    Assumptions.assumeTrue(
        onPath("node") && onPath("npm"),
        "SKIPPED: node and npm are not installed; the SES tests need the npm package aws-ses-v2-local");
    String configured = System.getenv("MAILROOM_SES_EMULATOR_DIR");
    Path dir =
        configured != null
            ? Path.of(configured)
            : Path.of(
                System.getProperty("user.home"), ".cache", "mailroom-test", "aws-ses-v2-local");
    Path cli = dir.resolve("node_modules/aws-ses-v2-local/dist/cli.js");
    if (!Files.exists(cli)) {
      Files.createDirectories(dir);
      Process npm =
          new ProcessBuilder(
                  "npm",
                  "install",
                  "--no-audit",
                  "--no-fund",
                  "--prefix",
                  dir.toString(),
                  "aws-ses-v2-local@" + VERSION)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("npm-install.log").toFile())
              .start();
      boolean done = npm.waitFor(INSTALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (!done) {
        npm.destroyForcibly();
      }
      Assumptions.assumeTrue(
          done && npm.exitValue() == 0 && Files.exists(cli),
          "SKIPPED: npm could not install aws-ses-v2-local (see "
              + dir.resolve("npm-install.log")
              + ")");
    }
    SesEmulator emulator = new SesEmulator(cli, freePort());
    emulator.run();
    return emulator;
  }

  private static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Starts the node process (again, after {@link #stop}) and waits for its health check. */
  public synchronized void run() throws Exception {
    process =
        new ProcessBuilder(
                "node", cli.toString(), "--host", "127.0.0.1", "--port", String.valueOf(port))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    HttpClient http = HttpClient.newHttpClient();
    Process started = process;
    Awaitility.await("the SES emulator on port " + port)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(
            () -> {
              if (!started.isAlive()) {
                throw new IllegalStateException("the SES emulator exited");
              }
              return http.send(
                          HttpRequest.newBuilder(URI.create(endpoint() + "/health-check")).build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
            });
  }

  public synchronized void stop() throws InterruptedException {
    if (process != null) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      process = null;
    }
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** The emulator's store (templates and sent emails) as JSON text. */
  public String store() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(endpoint() + "/store")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
