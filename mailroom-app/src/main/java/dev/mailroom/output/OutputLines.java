package dev.mailroom.output;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Joins records into output lines the downstream sender accepts: records separated by {@code ,}, no
 * empty line, no trailing separator, and at most {@value #MAX_PER_ACTION} records of one action per
 * line (the sender holds ten per action; more panics it). Records keep their order; a record that
 * would be the eleventh of its action starts a new line.
 */
public final class OutputLines {

  public static final int MAX_PER_ACTION = 10;

  private OutputLines() {}

  /** The lines, without line terminators; empty when there are no records. */
  public static List<String> of(List<OutputRecord> records) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    Map<TokenAction, Integer> counts = new EnumMap<>(TokenAction.class);
    for (OutputRecord record : records) {
      if (counts.getOrDefault(record.action(), 0) == MAX_PER_ACTION) {
        lines.add(line.toString());
        line.setLength(0);
        counts.clear();
      }
      if (line.length() > 0) {
        line.append(',');
      }
      line.append(record.format());
      counts.merge(record.action(), 1, Integer::sum);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }
}
