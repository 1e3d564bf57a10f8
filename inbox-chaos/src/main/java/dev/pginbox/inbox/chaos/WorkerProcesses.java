package dev.pginbox.inbox.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The worker processes of a run: separate JVMs running {@link ChaosWorker} on this JVM's class
 * path, each with its log in the run's directory. A kill is a real SIGKILL.
 */
final class WorkerProcesses implements AutoCloseable {

  private final String jdbcUrl;
  private final String inbox;
  private final Path logDir;
  private final List<Process> running = new ArrayList<>();
  private final Random random = new Random(7);
  private int started;

  WorkerProcesses(String jdbcUrl, String inbox, Path logDir) {
    this.jdbcUrl = jdbcUrl;
    this.inbox = inbox;
    this.logDir = logDir;
  }

  /** Starts one more worker and waits until it says it has started. */
  synchronized void startOne() {
    String name = "chaos-worker-" + (++started);
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-Xmx192m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                ChaosWorker.class.getName(),
                jdbcUrl,
                inbox,
                name)
            .redirectError(
                ProcessBuilder.Redirect.appendTo(logDir.resolve(name + ".log").toFile()));
    try {
      Process p = pb.start();
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      if (line == null || !line.startsWith("READY")) {
        p.destroyForcibly();
        throw new IllegalStateException(
            name + " did not start; see " + logDir.resolve(name + ".log"));
      }
      running.add(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL of a random worker, and a new one in its place. */
  synchronized void killOneAndReplace() throws InterruptedException {
    Process victim = running.remove(random.nextInt(running.size()));
    victim.destroyForcibly(); // SIGKILL
    victim.waitFor(30, TimeUnit.SECONDS);
    startOne();
  }

  synchronized int started() {
    return started;
  }

  /** SIGTERM to all (a graceful stop), then SIGKILL to what is still there after 30 s. */
  @Override
  public synchronized void close() throws InterruptedException {
    for (Process p : running) {
      p.destroy();
    }
    for (Process p : running) {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    running.clear();
  }
}
