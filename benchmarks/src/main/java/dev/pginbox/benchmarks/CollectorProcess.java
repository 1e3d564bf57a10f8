package dev.pginbox.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real mailroom collector ({@code java -jar mailroom-app.jar}) as a child process: counts the
 * records it prints, remembers when each email's line arrived, and reads its peak RSS.
 */
final class CollectorProcess implements AutoCloseable {

  private final Process process;
  private final Path stderr;
  private final AtomicLong records = new AtomicLong();
  private final Map<String, CompletableFuture<Long>> lineSeenAt = new ConcurrentHashMap<>();
  private final Thread reader;

  CollectorProcess(Path jar, List<String> jvmFlags, Map<String, String> env, boolean rememberEmails)
      throws IOException {
    this(javaJar(jar, jvmFlags), env, rememberEmails);
  }

  /** Any command that runs the collector, e.g. the distribution's bin/mailroom. */
  CollectorProcess(List<String> command, Map<String, String> env, boolean rememberEmails) throws IOException {
    stderr = Files.createTempFile("collector", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
    builder.environment().putAll(env);
    process = builder.start();
    reader = new Thread(() -> read(rememberEmails), "collector-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  private static List<String> javaJar(Path jar, List<String> jvmFlags) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-jar");
    command.add(jar.toString());
    return command;
  }

  private void read(boolean rememberEmails) {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        long now = System.nanoTime();
        String[] fields = line.split(",");
        records.addAndGet(fields.length / 5);
        if (rememberEmails) {
          for (int i = 1; i < fields.length; i += 5) {
            lineSeen(fields[i]).complete(now);
          }
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  void awaitLog(String text, long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (!Files.readString(stderr).contains(text)) {
      if (System.nanoTime() > deadline || !process.isAlive()) {
        throw new IllegalStateException(
            "collector did not log '" + text + "':\n" + Files.readString(stderr));
      }
      Thread.sleep(20);
    }
  }

  long records() {
    return records.get();
  }

  /**
   * Completes with the System.nanoTime at which the email's line was read (waiting, not spinning: 2
   * cores).
   */
  CompletableFuture<Long> lineSeen(String email) {
    return lineSeenAt.computeIfAbsent(email, e -> new CompletableFuture<>());
  }

  /** Peak resident set size (VmHWM) in MiB, read from /proc while the process lives. */
  double peakRssMib() throws IOException {
    return statusMib("VmHWM:");
  }

  /** Resident set size now (VmRSS) in MiB. */
  double rssMib() throws IOException {
    return statusMib("VmRSS:");
  }

  /** CPU time (user + system) the process has used so far, in ms (USER_HZ = 100 on Linux). */
  double cpuMillis() throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10.0;
  }

  private double statusMib(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    throw new IllegalStateException("no " + field + " for pid " + process.pid());
  }

  @Override
  public void close() throws IOException {
    process.destroy(); // SIGTERM: the collector finishes or rolls back its batch and exits 0
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      reader.join(5_000);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    Files.deleteIfExists(stderr);
  }
}
