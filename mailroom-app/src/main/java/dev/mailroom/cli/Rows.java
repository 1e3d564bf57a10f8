package dev.mailroom.cli;

import dev.mailroom.text.JsonObject;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The output of a listing command: a table with aligned columns for people, or (--json) a JSON
 * array of objects for scripts. Cells are strings, numbers or null; in the table, line breaks and
 * tabs of a cell become spaces so a row stays one line.
 */
final class Rows {

  private final List<String> columns;
  private final List<Object[]> rows = new ArrayList<>();

  Rows(String... columns) {
    this.columns = List.of(columns);
  }

  Rows add(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException("expected " + columns.size() + " cells");
    }
    rows.add(cells);
    return this;
  }

  int size() {
    return rows.size();
  }

  void print(PrintStream out, boolean json) {
    if (json) {
      printJson(out);
    } else {
      printTable(out);
    }
  }

  private void printTable(PrintStream out) {
    int[] widths = columns.stream().mapToInt(String::length).toArray();
    List<String[]> text = new ArrayList<>();
    for (Object[] row : rows) {
      String[] cells = new String[row.length];
      for (int i = 0; i < row.length; i++) {
        cells[i] = row[i] == null ? "" : oneLine(row[i].toString());
        widths[i] = Math.max(widths[i], cells[i].length());
      }
      text.add(cells);
    }
    out.println(line(columns.toArray(new String[0]), widths).toUpperCase(java.util.Locale.ROOT));
    text.forEach(cells -> out.println(line(cells, widths)));
  }

  private static String line(String[] cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      line.append(cells[i]);
      if (i < cells.length - 1) {
        line.append(" ".repeat(widths[i] - cells[i].length() + 2));
      }
    }
    return line.toString().stripTrailing();
  }

  private void printJson(PrintStream out) {
    List<String> objects = new ArrayList<>();
    for (Object[] row : rows) {
      List<String> members = new ArrayList<>();
      for (int i = 0; i < row.length; i++) {
        Object v = row[i];
        String value =
            v == null
                ? "null"
                : v instanceof Number || v instanceof Boolean
                    ? v.toString()
                    : JsonObject.quote(v.toString());
        members.add(JsonObject.quote(columns.get(i)) + ": " + value);
      }
      objects.add("  {" + String.join(", ", members) + "}");
    }
    out.println(objects.isEmpty() ? "[]" : "[\n" + String.join(",\n", objects) + "\n]");
  }

  private static String oneLine(String text) {
    String flat = text.replace('\n', ' ').replace('\r', ' ').replace('\t', ' ');
    return flat.length() > 120 ? flat.substring(0, 119) + "…" : flat;
  }

  @Override
  public String toString() {
    return columns + " " + rows.stream().map(Arrays::toString).toList();
  }
}
