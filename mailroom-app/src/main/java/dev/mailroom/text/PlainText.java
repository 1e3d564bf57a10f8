package dev.mailroom.text;

import java.util.regex.Pattern;

/**
 * A value shown inside a line of text (an email's subject or body): every character that could end
 * the line, start another, or reorder the text around it becomes a space. That is C0 and C1 control
 * characters (CR, LF, tab, NEL included), U+2028 and U+2029 (line and paragraph separators), and
 * the bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069. The same set is the
 * CHECK constraint {@code accounts_login_no_control_characters} of {@code
 * sql/mailroom/001_schema.sql}, which keeps such logins out at sign-up.
 */
public final class PlainText {

  private static final Pattern BREAKS_OR_REORDERS =
      Pattern.compile("[\\x00-\\x1F\\x7F-\\x9F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069]");

  private PlainText() {}

  /** The value with each such character replaced by a space; its length is unchanged. */
  public static String oneLine(String value) {
    return BREAKS_OR_REORDERS.matcher(value).replaceAll(" ");
  }
}
