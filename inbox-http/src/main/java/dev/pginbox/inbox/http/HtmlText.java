package dev.pginbox.inbox.http;

/**
 * Escaping for values placed into HTML text or attribute values, public so that applications
 * serving pages next to the console (the mailroom's verification and demo pages) escape the same
 * way and no second escaper is written.
 */
public final class HtmlText {

  private HtmlText() {}

  /**
   * {@code &}, {@code <}, {@code >}, {@code "} and {@code '} as entities; {@code null} as the empty
   * text.
   */
  public static String escape(Object value) {
    if (value == null) {
      return "";
    }
    String s = value.toString();
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
