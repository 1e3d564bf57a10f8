package dev.pginbox.inbox.postgres.internal;

/**
 * Text from messages and handlers (event ids, error texts, reasons) as it goes into a log line:
 * control characters are written as escapes ({@code \n}, {@code \r}, {@code \t}, {@code \u001b}),
 * so that a text with a line break cannot add a line of its own making to the log. Stack traces are
 * printed by the logging backend as they are; where logs are parsed, use a structured encoder.
 */
public final class LogText {

  private LogText() {}

  /** {@code text} with its control characters escaped; null stays null. */
  public static String safe(Object text) {
    if (text == null) {
      return null;
    }
    String s = text.toString();
    StringBuilder out = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!Character.isISOControl(c) && c != '\u2028' && c != '\u2029') {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder(s.length() + 8).append(s, 0, i);
      }
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out == null ? s : out.toString();
  }
}
