package dev.mailroom.testkit;

import dev.mailroom.collector.Collector;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A collector running in-process on its own thread, with captured stdout and stderr. */
public final class RunningCollector implements AutoCloseable {

  public final Collector collector;
  public final ByteArrayOutputStream stdoutBytes;
  public final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
  public final CompletableFuture<Integer> exit;

  private RunningCollector(
      Map<String, String> env, OutputStream stdout, ByteArrayOutputStream stdoutBytes) {
    this.stdoutBytes = stdoutBytes;
    this.collector =
        new Collector(
            new Collector.Io(
                env,
                stdout,
                new PrintStream(stderr, true, StandardCharsets.UTF_8),
                Clock.systemUTC()),
            null);
    this.exit =
        CompletableFuture.supplyAsync(
            collector::run,
            r -> {
              Thread t = new Thread(r, "collector-under-test");
              t.setDaemon(true);
              t.start();
            });
  }

  public static Map<String, String> env(MailroomDb db, String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATABASE_URL", db.url());
    env.put("MAILROOM_SECRET_KEY", "cafebabe".repeat(8));
    env.put("MAILROOM_POLL_INTERVAL", "200");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  public static RunningCollector start(Map<String, String> env) throws InterruptedException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RunningCollector running = new RunningCollector(env, out, out);
    running.awaitStarted();
    return running;
  }

  public static RunningCollector startWithStdout(Map<String, String> env, OutputStream stdout)
      throws InterruptedException {
    RunningCollector running = new RunningCollector(env, stdout, null);
    running.awaitStarted();
    return running;
  }

  private void awaitStarted() throws InterruptedException {
    // Generous: a first embedded start extracts the server binaries and runs initdb, which takes
    // tens of seconds on a loaded 2-core machine. The wait ends as soon as the collector is up.
    if (!collector.awaitStarted(Duration.ofSeconds(180)) && !exit.isDone()) {
      throw new AssertionError("collector did not start: " + stderr());
    }
  }

  public String stdout() {
    return stdoutBytes.toString(StandardCharsets.UTF_8);
  }

  public String stderr() {
    return stderr.toString(StandardCharsets.UTF_8);
  }

  /** Every record printed so far, each line checked against the sender's rules. */
  public List<SenderProtocol.Parsed> records() {
    String out = stdout();
    int end = out.lastIndexOf('\n');
    return end < 0 ? List.of() : SenderProtocol.checkOutput(out.substring(0, end + 1));
  }

  public int stop() throws Exception {
    collector.stop(null);
    return exit.get(60, TimeUnit.SECONDS);
  }

  /**
   * Stops the collector if a test has not; never throws InterruptedException (try-with-resources).
   */
  @Override
  public void close() {
    if (exit.isDone()) {
      return;
    }
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the collector", e);
    } catch (Exception e) {
      throw new IllegalStateException("the collector did not stop: " + e, e);
    }
  }
}
