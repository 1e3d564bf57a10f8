package dev.mailroom.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.collector.Collector;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.testkit.RunningCollector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo ({@link Demo#run}) on a database of the tests and a free loopback port, in a thread of
 * its own; closing it stops the demo and checks that it exited cleanly.
 */
final class RunningDemo implements AutoCloseable {

  private final Demo demo;
  private final CompletableFuture<Integer> exit;
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final int port;

  private RunningDemo(MailroomDb db, int port) {
    this.port = port;
    Map<String, String> env = new HashMap<>(RunningCollector.env(db));
    env.put("MAILROOM_HTTP_PORT", String.valueOf(port));
    demo =
        new Demo(
            new Collector.Io(
                env,
                new ByteArrayOutputStream(),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC()));
    exit = CompletableFuture.supplyAsync(demo::run);
  }

  /** On a free port whose next one (the console's) is free too. */
  static RunningDemo start(MailroomDb db) throws IOException {
    for (int attempt = 0; ; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      try (ServerSocket next = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
        return new RunningDemo(db, port);
      } catch (IOException taken) {
        if (attempt == 20) {
          throw taken;
        }
      }
    }
  }

  /** The operator console, {@code http://localhost:PORT+1/}. */
  String console() {
    return "http://localhost:" + (port + 1) + "/";
  }

  /** What the demo logged so far. */
  String log() {
    return err.toString(StandardCharsets.UTF_8);
  }

  /** The demo page, {@code http://localhost:PORT/}. */
  String home() {
    return "http://localhost:" + port + "/";
  }

  @Override
  public void close() throws Exception {
    demo.stop(null);
    assertThat(exit.get(60, TimeUnit.SECONDS)).as(err.toString()).isZero();
  }
}
