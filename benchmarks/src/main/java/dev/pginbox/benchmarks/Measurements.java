package dev.pginbox.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Rates of several runs of one scenario: median and spread (min..max). */
final class Measurements {

  private final List<Double> values = new ArrayList<>();

  void add(double value) {
    values.add(value);
  }

  double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return sorted().get(0);
  }

  double max() {
    return sorted().get(values.size() - 1);
  }

  int runs() {
    return values.size();
  }

  /** "median (min..max, n runs)" with no decimals, for rates. */
  String summary() {
    return String.format(Locale.ROOT, "%,.0f (%,.0f..%,.0f, %d runs)", median(), min(), max(), runs());
  }

  private List<Double> sorted() {
    if (values.isEmpty()) {
      throw new IllegalStateException("no measurement");
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted;
  }
}
