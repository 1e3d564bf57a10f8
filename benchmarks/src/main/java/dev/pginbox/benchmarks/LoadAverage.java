package dev.pginbox.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The machine's 1-minute load average sampled every few seconds while a scenario runs, so every
 * result says how busy the machine was: on a shared 2-core machine a number measured at load 6 is
 * not the number measured at load 0.5.
 */
final class LoadAverage implements AutoCloseable {

  private static final Path PROC_LOADAVG = Path.of("/proc/loadavg");
  private static final long PERIOD_SECONDS = 5;

  private final List<Double> samples = Collections.synchronizedList(new ArrayList<>());
  private final ScheduledExecutorService sampler;

  private LoadAverage() {
    sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "load-average");
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleAtFixedRate(this::record, 0, PERIOD_SECONDS, TimeUnit.SECONDS);
  }

  /** Starts sampling now. */
  static LoadAverage during() {
    return new LoadAverage();
  }

  /** The three load averages as the kernel prints them, or "unknown" off Linux. */
  static String now() {
    try {
      String[] f = Files.readString(PROC_LOADAVG).strip().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "unknown";
    }
  }

  private void record() {
    try {
      samples.add(Double.parseDouble(Files.readString(PROC_LOADAVG).strip().split("\\s+")[0]));
    } catch (Exception e) {
      // off Linux: nothing to sample; the summary says so
    }
  }

  /** "median M, max X (1-min load average, N samples)" over what was sampled so far. */
  String summary() {
    List<Double> sorted;
    synchronized (samples) {
      sorted = new ArrayList<>(samples);
    }
    if (sorted.isEmpty()) {
      return "unknown";
    }
    Collections.sort(sorted);
    return String.format("median %.2f, max %.2f (1-min load average, %d samples every %d s)",
        sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.size(), PERIOD_SECONDS);
  }

  @Override
  public void close() {
    sampler.shutdownNow();
  }
}
