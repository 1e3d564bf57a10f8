package dev.mailroom.output;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * One record of an output line: {@code <action>,<email>,<login>,<token>,<code>}. Nothing is escaped
 * in the original format, so {@link #problem} rejects what would corrupt a line for the downstream
 * sender.
 */
public record OutputRecord(
    TokenAction action, String email, String login, String token, String code) {

  /** The downstream sender's limit on one field, in bytes. */
  public static final int MAX_FIELD_BYTES = 254;

  public OutputRecord {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(email, "email");
    Objects.requireNonNull(login, "login");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(code, "code");
  }

  /** The record's text, without a separator. */
  public String format() {
    return action.outputCode() + "," + email + "," + login + "," + token + "," + code;
  }

  /**
   * Why a record with these fields cannot be printed safely (a separator or line break inside a
   * field, an empty field, a field over {@value #MAX_FIELD_BYTES} bytes), or empty when it can.
   */
  public static Optional<String> problem(String email, String login, String code) {
    for (String[] field : new String[][] {{"email", email}, {"login", login}, {"code", code}}) {
      String value = field[1];
      if (value == null || value.isEmpty()) {
        return Optional.of(field[0] + " is empty");
      }
      if (value.indexOf(',') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
        return Optional.of(field[0] + " contains a comma or a line break");
      }
      if (value.getBytes(StandardCharsets.UTF_8).length > MAX_FIELD_BYTES) {
        return Optional.of(field[0] + " is longer than " + MAX_FIELD_BYTES + " bytes");
      }
    }
    return Optional.empty();
  }
}
