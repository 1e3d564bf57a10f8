package dev.mailroom.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs PostgreSQL's command-line tools ({@code initdb}, {@code pg_ctl}, {@code postgres --single})
 * for {@link PostgresCluster}: without the caller's {@code PG*} environment, in a user namespace
 * when the mailroom runs as root (PostgreSQL refuses root), and keeping only the first {@value
 * #MAX_OUTPUT_BYTES} bytes of what a tool prints.
 */
final class PostgresTool {

  private static final int MAX_OUTPUT_BYTES = 8192;

  private PostgresTool() {}

  /**
   * Runs {@code command} (a PostgreSQL tool and its arguments) with {@code input} on its standard
   * input, if any; a non-zero exit becomes an exception with the tool's (bounded) output.
   */
  static void run(List<String> command, String input) throws IOException {
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
}
