package dev.mailroom.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.verify.Verification.Result;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The 5-digit codes of password recoveries: few tries per token, unpredictable, and one use ends
 * every other recovery of the account.
 */
class RecoveryCodesTest {

  static final byte[] KEY = HexFormat.of().parseHex("cafebabe".repeat(8));
  static MailroomDb db;
  static TokenVerifier verifier;

  @BeforeAll
  static void database() {
    db = MailroomDb.create("mailroom_recovery_codes");
    verifier = new TokenVerifier(db.dataSource, new SigningKeys(KEY, List.of()));
  }

  /** A recovery token of an activated account: its id, link token and code. */
  private record Recovery(long id, String token, String code) {

    String wrongCode(int k) {
      return String.format("%05d", (Integer.parseInt(code) + k) % 100000);
    }
  }

  private static Recovery activeAccountAsksForRecovery(String login) throws Exception {
    db.signUp(login);
    String activation = new TokenSigner(KEY).sign(TokenAction.ACTIVATION, db.secretOf(login), null);
    assertThat(verifier.activate(activation).result()).isEqualTo(Result.ACTIVATED);
    return anotherRecovery(login);
  }

  private static Recovery anotherRecovery(String login) throws Exception {
    // Inserted directly (request_password_recovery holds back a second request for a minute).
    long id =
        db.count(
            "INSERT INTO tokens (account, action) SELECT id, 'password_recovery' FROM accounts"
                + " WHERE login = ? RETURNING id",
            login);
    String code = String.format("%05d", db.count("SELECT code::int FROM tokens WHERE id = ?", id));
    byte[] secret;
    try (Connection c = db.db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT secret FROM tokens WHERE id = " + id)) {
      rs.next();
      secret = rs.getBytes(1);
    }
    return new Recovery(
        id, new TokenSigner(KEY).sign(TokenAction.PASSWORD_RECOVERY, secret, code), code);
  }

  private static boolean consumed(long tokenId) throws Exception {
    return db.count("SELECT (consumed_at IS NOT NULL)::int FROM tokens WHERE id = ?", tokenId) == 1;
  }

  @Test
  void a_recovery_token_is_burned_after_five_wrong_codes() throws Exception {
    Recovery r = activeAccountAsksForRecovery("rc_burn");
    for (int k = 1; k < TokenVerifier.MAX_CODE_ATTEMPTS; k++) {
      assertThat(verifier.recover(r.token(), r.wrongCode(k)).result())
          .isEqualTo(Result.BAD_SIGNATURE);
      assertThat(consumed(r.id())).isFalse();
    }
    assertThat(verifier.recover(r.token(), r.wrongCode(99)).result())
        .isEqualTo(Result.TOO_MANY_WRONG_CODES);
    assertThat(consumed(r.id())).as("burned").isTrue();
    assertThat(verifier.recover(r.token(), r.code()).result())
        .isEqualTo(Result.TOO_MANY_WRONG_CODES);
  }

  @Test
  void wrong_codes_below_the_limit_leave_the_right_one_working() throws Exception {
    Recovery r = activeAccountAsksForRecovery("rc_typo");
    for (int k = 1; k < TokenVerifier.MAX_CODE_ATTEMPTS; k++) {
      verifier.recover(r.token(), r.wrongCode(k));
    }
    assertThat(verifier.recover(r.token(), r.code()).result()).isEqualTo(Result.RECOVERED);
  }

  @Test
  void using_a_recovery_token_ends_the_account_s_other_outstanding_ones() throws Exception {
    Recovery first = activeAccountAsksForRecovery("rc_many");
    Recovery second = anotherRecovery("rc_many");
    Recovery third = anotherRecovery("rc_many");
    Recovery otherAccount = activeAccountAsksForRecovery("rc_other");

    assertThat(verifier.recover(second.token(), second.code()).result())
        .isEqualTo(Result.RECOVERED);

    assertThat(consumed(first.id())).isTrue();
    assertThat(consumed(third.id())).isTrue();
    assertThat(verifier.recover(first.token(), first.code()).result())
        .isEqualTo(Result.ALREADY_CONSUMED);
    assertThat(verifier.recover(otherAccount.token(), otherAccount.code()).result())
        .isEqualTo(Result.RECOVERED);
  }

  /**
   * PostgreSQL's random() is a seeded generator: after setseed() it repeats itself, so codes drawn
   * from it can be predicted by whoever learns its state. Codes from a cryptographic generator do
   * not repeat after the same seed (the chance that three 5-digit codes do is 10^-15).
   */
  @Test
  void recovery_codes_do_not_follow_the_session_s_random_seed() throws Exception {
    long tokenId = activeAccountAsksForRecovery("rc_seed").id();
    try (Connection c = db.db.connect();
        Statement s = c.createStatement()) {
      List<List<String>> runs = new ArrayList<>();
      for (int run = 0; run < 2; run++) {
        s.execute("SELECT setseed(0.42)");
        List<String> codes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          try (ResultSet rs =
              s.executeQuery(
                  "INSERT INTO tokens (account, action) SELECT account, 'password_recovery'"
                      + " FROM tokens WHERE id = "
                      + tokenId
                      + " RETURNING code")) {
            rs.next();
            codes.add(rs.getString(1));
          }
        }
        runs.add(codes);
      }
      assertThat(runs.get(1)).isNotEqualTo(runs.get(0));
      try (ResultSet rs =
          s.executeQuery(
              "WITH made AS (INSERT INTO tokens (account, action)"
                  + " SELECT account, 'password_recovery' FROM tokens, generate_series(1, 2000)"
                  + " WHERE id = "
                  + tokenId
                  + " RETURNING code)"
                  + " SELECT count(*) FILTER (WHERE code !~ '^[0-9]{5}$'), count(*) FROM made")) {
        rs.next();
        assertThat(rs.getLong(1)).as("codes that are not 5 digits").isZero();
        assertThat(rs.getLong(2)).isEqualTo(2000);
      }
    }
  }
}
