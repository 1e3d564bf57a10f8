package dev.mailroom.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Lines of UTF-8 from a stream, each at most {@code maxBytes}: a longer line is skipped to its end
 * and reported, so memory stays bounded whatever the input.
 */
final class BoundedLines {

  /** One line, or the report that it was too long. */
  record Line(int number, String text, boolean tooLong) {}

  private final InputStream in;
  private final int maxBytes;
  private int number;

  BoundedLines(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /** The next line without its terminator (and without a trailing CR), or null at the end. */
  Line next() throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    boolean tooLong = false;
    int b;
    while ((b = in.read()) != -1 && b != '\n') {
      if (buffer.size() < maxBytes) {
        buffer.write(b);
      } else {
        tooLong = true;
      }
    }
    if (b == -1 && buffer.size() == 0 && !tooLong) {
      return null;
    }
    number++;
    String text = buffer.toString(StandardCharsets.UTF_8);
    if (text.endsWith("\r")) {
      text = text.substring(0, text.length() - 1);
    }
    return new Line(number, tooLong ? null : text, tooLong);
  }
}
