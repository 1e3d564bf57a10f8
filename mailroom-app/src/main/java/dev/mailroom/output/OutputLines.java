package dev.mailroom.output;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Joins records into output lines the downstream sender accepts: records separated by {@code ,}, no
 * empty line, no trailing separator, and at most {@value #MAX_PER_ACTION} records of one action per
 * line (the sender holds ten per action; more panics it). Records keep their order; a record that
 * would be the eleventh of its action starts a new line.
 *
 * <p>A line with its {@code \n} is also at most {@value #PIPE_BUF} bytes: {@link TokenOutput}
 * writes each line with one {@code write}, and POSIX makes a pipe write of at most {@code PIPE_BUF}
 * bytes atomic, so a reader of the pipe never sees half a line, even when the collector is killed
 * in the middle of a batch. A record that would make the line longer starts a new line (one record
 * is at most about 600 bytes: its fields are capped by {@link OutputRecord#MAX_FIELD_BYTES}).
 */
public final class OutputLines {

  public static final int MAX_PER_ACTION = 10;

  /** Linux's (and POSIX's minimum is 512; every platform the collector runs on has 4096). */
  public static final int PIPE_BUF = 4096;

  private static final int MAX_LINE_BYTES = PIPE_BUF - 1; // the rest is the '\n'

  private OutputLines() {}

  /** The lines, without line terminators; empty when there are no records. */
  public static List<String> of(List<OutputRecord> records) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    int lineBytes = 0;
    Map<TokenAction, Integer> counts = new EnumMap<>(TokenAction.class);
    for (OutputRecord record : records) {
      String text = record.format();
      int bytes = text.getBytes(StandardCharsets.UTF_8).length;
      boolean full =
          counts.getOrDefault(record.action(), 0) == MAX_PER_ACTION
              || (line.length() > 0 && lineBytes + 1 + bytes > MAX_LINE_BYTES);
      if (full) {
        lines.add(line.toString());
        line.setLength(0);
        lineBytes = 0;
        counts.clear();
      }
      if (line.length() > 0) {
        line.append(',');
        lineBytes++;
      }
      line.append(text);
      lineBytes += bytes;
      counts.merge(record.action(), 1, Integer::sum);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }
}
