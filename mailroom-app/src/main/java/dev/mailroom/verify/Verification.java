package dev.mailroom.verify;

import java.util.Objects;

/**
 * The answer to one verification attempt.
 *
 * @param account the token's account, or null when the token was not found or not authentic
 */
public record Verification(Result result, Long account) {

  /** Every way a verification ends. */
  public enum Result {
    /** An activation token was consumed; the account is active. */
    ACTIVATED,
    /** A password recovery token (with its code) was consumed; the application may reset. */
    RECOVERED,
    /** Not a token signed by any configured key (or malformed, or the wrong code). */
    BAD_SIGNATURE,
    /** Authentic, but no such token (deleted, or issued for another action). */
    UNKNOWN,
    /** Past its {@code expires_at}. */
    EXPIRED,
    /** Used before. */
    ALREADY_CONSUMED,
    /** The account is suspended (or, for a recovery, not active). */
    ACCOUNT_SUSPENDED,
    /** A recovery token burned by too many wrong codes: the user must ask for a new one. */
    TOO_MANY_WRONG_CODES;

    public boolean succeeded() {
      return this == ACTIVATED || this == RECOVERED;
    }
  }

  public Verification {
    Objects.requireNonNull(result, "result");
  }

  static Verification of(Result result) {
    return new Verification(result, null);
  }
}
