package dev.mailroom.output;

import java.util.Optional;

/** The token actions of the original schema, with their output code and signed path. */
public enum TokenAction {
  ACTIVATION("activation", '1', "/activate"),
  PASSWORD_RECOVERY("password_recovery", '2', "/recover");

  private final String dbName;
  private final char outputCode;
  private final String path;

  TokenAction(String dbName, char outputCode, String path) {
    this.dbName = dbName;
    this.outputCode = outputCode;
    this.path = path;
  }

  /** The value of the {@code token_action} enum in PostgreSQL. */
  public String dbName() {
    return dbName;
  }

  /** The first character of an output record: 1 = activation, 2 = password recovery. */
  public char outputCode() {
    return outputCode;
  }

  /** The path prefixed to the signed data ({@code /activate}, {@code /recover}). */
  public String path() {
    return path;
  }

  public static Optional<TokenAction> fromDbName(String name) {
    for (TokenAction a : values()) {
      if (a.dbName.equals(name)) {
        return Optional.of(a);
      }
    }
    return Optional.empty();
  }
}
