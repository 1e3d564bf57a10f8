package dev.mailroom.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A checker that reads lines like the downstream Rust sender: records of five fields, the first
 * character of each record 1 or 2, at most 10 records per action per line, no field over 254 bytes,
 * no empty line, no trailing comma. Throws {@link AssertionError} on any violation.
 */
public final class SenderProtocol {

  public record Parsed(char action, String email, String login, String token, String code) {}

  private SenderProtocol() {}

  public static List<Parsed> check(String line) {
    if (line.isEmpty()) {
      throw new AssertionError("empty line");
    }
    if (line.endsWith(",")) {
      throw new AssertionError("trailing comma: " + line);
    }
    String[] fields = line.split(",", -1);
    if (fields.length % 5 != 0) {
      throw new AssertionError("field count " + fields.length + " is not a multiple of 5: " + line);
    }
    List<Parsed> records = new ArrayList<>();
    int[] perAction = new int[3];
    for (int i = 0; i < fields.length; i += 5) {
      String action = fields[i];
      if (!action.equals("1") && !action.equals("2")) {
        throw new AssertionError("record " + (i / 5) + " starts with '" + action + "': " + line);
      }
      for (int f = i; f < i + 5; f++) {
        if (fields[f].isEmpty()) {
          throw new AssertionError("empty field in record " + (i / 5) + ": " + line);
        }
        if (fields[f].getBytes(StandardCharsets.UTF_8).length > 254) {
          throw new AssertionError("field over 254 bytes: " + line);
        }
      }
      if (++perAction[action.charAt(0) - '0'] > 10) {
        throw new AssertionError("more than 10 records of action " + action + ": " + line);
      }
      records.add(
          new Parsed(action.charAt(0), fields[i + 1], fields[i + 2], fields[i + 3], fields[i + 4]));
    }
    return records;
  }

  /** Checks every line of a collector's stdout; returns all records in order. */
  public static List<Parsed> checkOutput(String stdout) {
    List<Parsed> all = new ArrayList<>();
    if (stdout.isEmpty()) {
      return all;
    }
    if (!stdout.endsWith("\n")) {
      throw new AssertionError("output does not end with a line break");
    }
    for (String line : stdout.substring(0, stdout.length() - 1).split("\n", -1)) {
      all.addAll(check(line));
    }
    return all;
  }
}
