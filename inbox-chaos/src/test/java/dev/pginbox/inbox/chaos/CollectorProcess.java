package dev.pginbox.inbox.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The mailroom collector as a process of its own ({@code dev.mailroom.cli.Main} on this JVM's class
 * path), its stdout kept in memory and its log in a file.
 */
final class CollectorProcess implements AutoCloseable {

  private final Process process;
  private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
  private final Thread reader;

  CollectorProcess(String libpqUrl, Path log) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                java,
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.mailroom.cli.Main")
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("MAILROOM_"));
    Map<String, String> mine = new HashMap<>();
    mine.put("MAILROOM_DATABASE_URL", libpqUrl);
    mine.put("MAILROOM_SECRET_KEY", "cafebabe".repeat(8));
    mine.put("MAILROOM_POLL_INTERVAL", "200");
    mine.put("MAILROOM_BATCH_TIMEOUT", "50");
    env.putAll(mine);
    process = pb.start();
    InputStream in = process.getInputStream();
    reader =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                  synchronized (stdout) {
                    stdout.write(buffer, 0, n);
                  }
                }
              } catch (IOException e) {
                // the process is gone
              }
            },
            "collector-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Logins of every complete record printed so far, in order, repeats included. */
  List<String> printedLogins() {
    String text;
    synchronized (stdout) {
      text = stdout.toString(StandardCharsets.UTF_8);
    }
    int end = text.lastIndexOf('\n');
    if (end < 0) {
      return List.of();
    }
    List<String> logins = new java.util.ArrayList<>();
    for (String line : text.substring(0, end).split("\n")) {
      String[] fields = line.split(",");
      for (int i = 0; i + 4 < fields.length; i += 5) {
        logins.add(fields[i + 2]);
      }
    }
    return logins;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    reader.join(TimeUnit.SECONDS.toMillis(10));
  }
}
