package dev.mailroom.verify;

import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.verify.Verification.Result;
import dev.pginbox.inbox.postgres.sql.SqlFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Checks and consumes the tokens of activation and password-recovery links, for any web framework:
 * first the signature (constant-time, against the current and previous keys, before the database is
 * asked anything), then, in one transaction, the token row (action, expiry, use, account state)
 * locked and consumed, so the original trigger activates the account and a double click consumes
 * once.
 */
public final class TokenVerifier {

  /** Wrong codes a recovery token takes; the last one burns it (consumed, never valid again). */
  public static final int MAX_CODE_ATTEMPTS = 5;

  private static final String LOOKUP = SqlFiles.get(TokenVerifier.class, "token_for_update");
  private static final String WRONG_CODE = SqlFiles.get(TokenVerifier.class, "wrong_code");
  private static final String CONSUME =
      "UPDATE public.tokens SET consumed_at = extract(epoch FROM now()) "
          + "WHERE id = ? AND consumed_at IS NULL";

  private final DataSource dataSource;
  private final SigningKeys keys;

  public TokenVerifier(DataSource dataSource, SigningKeys keys) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.keys = Objects.requireNonNull(keys, "keys");
  }

  /** {@code POST /activate} with the token of the link. */
  public Verification activate(String token) throws SQLException {
    return verify(TokenAction.ACTIVATION, token, null);
  }

  /** {@code POST /recover} with the token of the link and the 5-digit code of the email. */
  public Verification recover(String token, String code) throws SQLException {
    return verify(TokenAction.PASSWORD_RECOVERY, token, code);
  }

  private Verification verify(TokenAction action, String token, String code) throws SQLException {
    if (token == null || token.length() != TokenSigner.TOKEN_LENGTH) {
      return Verification.of(Result.BAD_SIGNATURE);
    }
    byte[] secret;
    try {
      secret = Arrays.copyOf(Base64.getUrlDecoder().decode(token), TokenSigner.SECRET_LENGTH);
    } catch (IllegalArgumentException e) {
      return Verification.of(Result.BAD_SIGNATURE);
    }
    if (!keys.verify(action, token, code)) {
      // The MAC covers the code, so a wrong code looks like a forged token. If the secret is a
      // recovery token's, the code was wrong: it counts against that token.
      return action == TokenAction.PASSWORD_RECOVERY
          ? wrongCode(secret)
          : Verification.of(Result.BAD_SIGNATURE);
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Verification v = consume(c, action, secret, code);
        c.commit();
        return v;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Counts a wrong code against the recovery token with this secret, if there is one that could
   * still be used; the {@value #MAX_CODE_ATTEMPTS}th burns it. Autocommit: the count must stay
   * whatever happens next.
   */
  private Verification wrongCode(byte[] secret) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(WRONG_CODE)) {
      c.setAutoCommit(true);
      s.setInt(1, MAX_CODE_ATTEMPTS);
      s.setBytes(2, secret);
      try (ResultSet rs = s.executeQuery()) {
        boolean burned = rs.next() && rs.getInt(1) >= MAX_CODE_ATTEMPTS;
        return Verification.of(burned ? Result.TOO_MANY_WRONG_CODES : Result.BAD_SIGNATURE);
      }
    }
  }

  private static Verification consume(Connection c, TokenAction action, byte[] secret, String code)
      throws SQLException {
    long id;
    long account;
    try (PreparedStatement s = c.prepareStatement(LOOKUP)) {
      s.setBytes(1, secret);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next() || !action.dbName().equals(rs.getString("action"))) {
          return Verification.of(Result.UNKNOWN);
        }
        id = rs.getLong("id");
        account = rs.getLong("account");
        Result refusal = refusal(action, rs, code);
        if (refusal != null) {
          return new Verification(refusal, account);
        }
      }
    }
    try (PreparedStatement s = c.prepareStatement(CONSUME)) {
      s.setLong(1, id);
      if (s.executeUpdate() != 1) {
        return new Verification(Result.ALREADY_CONSUMED, account);
      }
    }
    return new Verification(
        action == TokenAction.ACTIVATION ? Result.ACTIVATED : Result.RECOVERED, account);
  }

  /** Why a locked, authentic token cannot be consumed, or null when it can. */
  private static Result refusal(TokenAction action, ResultSet rs, String code) throws SQLException {
    if (rs.getInt("failed_attempts") >= MAX_CODE_ATTEMPTS) {
      return Result.TOO_MANY_WRONG_CODES;
    }
    if (rs.getBoolean("consumed")) {
      return Result.ALREADY_CONSUMED;
    }
    if (rs.getBoolean("expired")) {
      return Result.EXPIRED;
    }
    String status = rs.getString("status");
    if (status == null || status.equals("suspended")) {
      return Result.ACCOUNT_SUSPENDED;
    }
    if (action == TokenAction.PASSWORD_RECOVERY) {
      // The MAC covers the code already; the row must agree, whatever a leaked key allows.
      if (!Objects.equals(rs.getString("code"), code)) {
        return Result.BAD_SIGNATURE;
      }
      if (!status.equals("active")) {
        return Result.ACCOUNT_SUSPENDED;
      }
    }
    return null;
  }
}
