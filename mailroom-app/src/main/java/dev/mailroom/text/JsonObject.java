package dev.mailroom.text;

import java.util.ArrayList;
import java.util.List;

/**
 * A flat JSON object for the operator commands' output, one member per line. Strings are escaped
 * (quotes, backslashes, control characters), so an inbox or error text cannot break the document.
 */
public final class JsonObject {

  private final List<String> members = new ArrayList<>();

  public JsonObject add(String name, String value) {
    members.add(quote(name) + ": " + (value == null ? "null" : quote(value)));
    return this;
  }

  public JsonObject add(String name, long value) {
    members.add(quote(name) + ": " + value);
    return this;
  }

  public JsonObject add(String name, boolean value) {
    members.add(quote(name) + ": " + value);
    return this;
  }

  @Override
  public String toString() {
    return members.isEmpty() ? "{}" : "{\n    " + String.join(",\n    ", members) + "\n}";
  }

  public static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
