package dev.pginbox.inbox;

import java.util.regex.Pattern;

/**
 * The rule for inbox names, the same as {@code inbox.check_inbox_name} in SQL: 1 to 40 characters
 * {@code a-z 0-9 _}, starting with a letter, so that every derived object name fits PostgreSQL's
 * identifier limit and nothing needs quoting.
 */
public final class InboxNames {

  public static final int MAX_LENGTH = 40;
  private static final Pattern VALID =
      Pattern.compile("[a-z][a-z0-9_]{0," + (MAX_LENGTH - 1) + "}");

  private InboxNames() {}

  public static boolean isValid(String name) {
    return name != null && VALID.matcher(name).matches();
  }

  /** Returns the name, or throws {@link InvalidInboxArgumentException} with the rule. */
  public static String requireValid(String name) {
    if (!isValid(name)) {
      throw new InvalidInboxArgumentException(
          "invalid inbox name "
              + (name == null ? "null" : "'" + name + "'")
              + ": use 1 to "
              + MAX_LENGTH
              + " characters a-z, 0-9 and _, starting with a letter",
          name);
    }
    return name;
  }
}
