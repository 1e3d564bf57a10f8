package dev.pginbox.benchmarks;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/** Latency percentiles in microseconds of precision, reported in milliseconds. */
final class LatencyRecorder {

  private final Histogram histogram = new Histogram(60_000_000_000L, 3);

  void recordNanos(long nanos) {
    histogram.recordValue(Math.max(0, nanos));
  }

  long count() {
    return histogram.getTotalCount();
  }

  double percentileMillis(double percentile) {
    return histogram.getValueAtPercentile(percentile) / 1_000_000.0;
  }

  double maxMillis() {
    return histogram.getMaxValue() / 1_000_000.0;
  }

  String summary() {
    return String.format(Locale.ROOT, "p50 %.2f ms, p99 %.2f ms, max %.2f ms (n=%d)",
        percentileMillis(50), percentileMillis(99), maxMillis(), count());
  }
}
