package dev.mailroom.text;

/** Escaping for values placed into HTML text or attribute values. */
public final class Html {

  private Html() {}

  /** {@code &}, {@code <}, {@code >}, {@code "} and {@code '} as entities. */
  public static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
