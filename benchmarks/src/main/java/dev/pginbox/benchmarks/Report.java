package dev.pginbox.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Prints result rows as Markdown table lines and appends them to a results file. */
final class Report {

  private final PrintStream out;
  private final Path file;

  Report(PrintStream out, Path file) {
    this.out = out;
    this.file = file;
  }

  void section(String title, String header) {
    line("");
    line("### " + title);
    line("");
    line(header);
    line(header.replaceAll("[^|]", "-"));
  }

  void row(Object... cells) {
    StringBuilder sb = new StringBuilder("|");
    for (Object cell : cells) {
      sb.append(' ').append(cell).append(" |");
    }
    line(sb.toString());
  }

  void line(String text) {
    out.println(text);
    out.flush();
    if (file != null) {
      try {
        Files.writeString(file, text + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new IllegalStateException("cannot write " + file, e);
      }
    }
  }
}
