package dev.mailroom.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mailroom.collector.Collector;
import dev.mailroom.testkit.EmbeddedTestCache;
import dev.mailroom.testkit.RunningCollector;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a database URL the operator commands reach a running collector's locked-down server. */
class EmbeddedOperatorCommandsTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    out.reset();
    err.reset();
    Collector.Io io =
        new Collector.Io(
            env, out, new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());
    return Main.commandLine(io).execute(args);
  }

  @Test
  void health_and_status_read_the_password_from_the_data_directory(@TempDir Path dir)
      throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATA_DIR", dir.resolve("data").toString());
    env.put("MAILROOM_EMBEDDED_PORT", String.valueOf(port));
    env.put("XDG_CACHE_HOME", EmbeddedTestCache.XDG_CACHE_HOME.toString());

    Map<String, String> elsewhere = new HashMap<>(env);
    elsewhere.put("MAILROOM_DATA_DIR", dir.resolve("other").toString());
    assertThat(run(elsewhere, "health")).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("no embedded server password in " + dir.resolve("other").resolve("pgpass"))
        .contains("start the collector first");

    try (RunningCollector c = RunningCollector.start(env)) {
      await().atMost(Duration.ofSeconds(60)).until(c.collector::isConnected);
      assertThat(run(env, "health")).as(err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"status\"");
      assertThat(run(env, "status")).as(err.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(c.stop()).isZero();
    }
  }
}
