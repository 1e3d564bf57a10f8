package dev.mailroom.output;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one form of {@code accounts.email} a token's email may be sent to: a single bare addr-spec,
 * {@code local@domain}, ASCII, at most {@value #MAX_LENGTH} characters. A mail library parses the
 * stored value as an address <em>list</em>: {@code "w2@x.test" <attacker@evil.test>} is a display
 * name in front of another mailbox, and {@code grp: a@evil.test, b@evil.test;} is a group of two,
 * so anything but the bare form could send one account's token to someone else, or to several
 * people.
 *
 * <p>The local part is a dot-atom (RFC 5322 atext, dots only between characters, at most {@value
 * #MAX_LOCAL_LENGTH} characters), the domain one or more host-name labels. No display name, group,
 * comment, quoting, IP literal, whitespace or control character. The same rule is the CHECK
 * constraint {@code accounts_email_one_bare_address} of {@code sql/mailroom/001_schema.sql}.
 */
public final class RecipientAddress {

  public static final int MAX_LENGTH = 254;
  public static final int MAX_LOCAL_LENGTH = 64;

  private static final String ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
  private static final String LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  private static final Pattern BARE =
      Pattern.compile(ATEXT + "+(?:\\." + ATEXT + "+)*@" + LABEL + "(?:\\." + LABEL + ")*");
  private static final Pattern SPACE_OR_CONTROL = Pattern.compile("[\\s\\p{Cntrl}]");

  private RecipientAddress() {}

  /**
   * Why {@code email} is not a single bare address, or empty when it is. The reason never quotes
   * the value: it ends up in the dead-letter queue and the log.
   */
  public static Optional<String> problem(String email) {
    if (email == null || email.isEmpty()) {
      return Optional.of("invalid address: empty");
    }
    if (email.length() > MAX_LENGTH) {
      return Optional.of("invalid address: longer than " + MAX_LENGTH + " characters");
    }
    if (SPACE_OR_CONTROL.matcher(email).find()) {
      return Optional.of("invalid address: contains a space, a line break or a control character");
    }
    if (!BARE.matcher(email).matches()) {
      return Optional.of(
          "invalid address: not one bare address local@domain"
              + " (a display name, group, comment, quoting or non-ASCII character)");
    }
    if (email.indexOf('@') > MAX_LOCAL_LENGTH) {
      return Optional.of(
          "invalid address: local part longer than " + MAX_LOCAL_LENGTH + " characters");
    }
    return Optional.empty();
  }
}
