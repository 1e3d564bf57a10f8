package dev.mailroom.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import dev.mailroom.testkit.MailroomDb;
import dev.mailroom.verify.Verification.Result;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TokenVerifierTest {

  static final byte[] OLD_KEY = HexFormat.of().parseHex("cafebabe".repeat(8));
  static final byte[] NEW_KEY = HexFormat.of().parseHex("0123456789abcdef".repeat(4));

  static MailroomDb db;

  @BeforeAll
  static void database() {
    db = MailroomDb.create("mailroom_verify");
  }

  private static TokenVerifier verifier(byte[] current, byte[]... previous) {
    return new TokenVerifier(db.dataSource, new SigningKeys(current, List.of(previous)));
  }

  private static String activationToken(byte[] key, String login) throws Exception {
    return new TokenSigner(key).sign(TokenAction.ACTIVATION, db.secretOf(login), null);
  }

  private static String status(long account) throws Exception {
    return db.count(
                "SELECT CASE status WHEN 'active' THEN 1 WHEN 'suspended' THEN 2 ELSE 0 END"
                    + " FROM accounts WHERE id = "
                    + account)
            == 1
        ? "active"
        : "other";
  }

  @Test
  void a_valid_activation_consumes_the_token_and_activates_the_account() throws Exception {
    long account = db.signUp("v_ok").get(0);
    Verification v = verifier(OLD_KEY).activate(activationToken(OLD_KEY, "v_ok"));
    assertThat(v).isEqualTo(new Verification(Result.ACTIVATED, account));
    assertThat(status(account)).isEqualTo("active");
    assertThat(verifier(OLD_KEY).activate(activationToken(OLD_KEY, "v_ok")).result())
        .isEqualTo(Result.ALREADY_CONSUMED);
  }

  @Test
  void every_refusal_has_its_own_result() throws Exception {
    TokenVerifier verifier = verifier(OLD_KEY);
    db.signUp("v_bad", "v_expired", "v_suspended", "v_deleted");
    String good = activationToken(OLD_KEY, "v_bad");
    char last = good.charAt(good.length() - 1);
    String tampered = good.substring(0, good.length() - 1) + (last == 'A' ? 'B' : 'A');
    assertThat(verifier.activate(tampered).result()).isEqualTo(Result.BAD_SIGNATURE);
    assertThat(verifier.activate("short").result()).isEqualTo(Result.BAD_SIGNATURE);
    assertThat(verifier.activate(null).result()).isEqualTo(Result.BAD_SIGNATURE);
    assertThat(verifier.activate("*".repeat(86)).result()).isEqualTo(Result.BAD_SIGNATURE);
    // Signed for the other action: the MAC does not match.
    assertThat(verifier.recover(good, "12345").result()).isEqualTo(Result.BAD_SIGNATURE);

    db.execute(
        "UPDATE tokens SET expires_at = extract(epoch FROM now()) - 1 WHERE account ="
            + " (SELECT id FROM accounts WHERE login = 'v_expired')");
    assertThat(verifier.activate(activationToken(OLD_KEY, "v_expired")).result())
        .isEqualTo(Result.EXPIRED);

    db.execute("UPDATE accounts SET status = 'suspended' WHERE login = 'v_suspended'");
    assertThat(verifier.activate(activationToken(OLD_KEY, "v_suspended")).result())
        .isEqualTo(Result.ACCOUNT_SUSPENDED);

    String deleted = activationToken(OLD_KEY, "v_deleted");
    db.execute("DELETE FROM accounts WHERE login = 'v_deleted'");
    assertThat(verifier.activate(deleted).result()).isEqualTo(Result.UNKNOWN);
    // Nothing was consumed by the refusals.
    assertThat(
            db.count(
                "SELECT count(*) FROM tokens t JOIN accounts a ON a.id = t.account"
                    + " WHERE a.login IN ('v_bad', 'v_expired', 'v_suspended') AND t.consumed_at IS NOT NULL"))
        .isZero();
  }

  @Test
  void a_recovery_needs_the_right_code() throws Exception {
    long account = db.signUp("v_rec").get(0);
    assertThat(verifier(OLD_KEY).activate(activationToken(OLD_KEY, "v_rec")).result())
        .isEqualTo(Result.ACTIVATED);
    db.execute("SELECT mailroom.request_password_recovery('v_rec')");
    byte[] secret = db.secretOf("v_rec");
    long code =
        db.count(
            "SELECT code::int FROM tokens WHERE action = 'password_recovery' AND account = "
                + account);
    String codeText = String.format("%05d", code);
    String token = new TokenSigner(OLD_KEY).sign(TokenAction.PASSWORD_RECOVERY, secret, codeText);
    String wrong = String.format("%05d", (code + 1) % 100000);
    assertThat(verifier(OLD_KEY).recover(token, wrong).result()).isEqualTo(Result.BAD_SIGNATURE);
    assertThat(verifier(OLD_KEY).recover(token, "abc").result()).isEqualTo(Result.BAD_SIGNATURE);
    assertThat(verifier(OLD_KEY).recover(token, codeText))
        .isEqualTo(new Verification(Result.RECOVERED, account));
    assertThat(verifier(OLD_KEY).recover(token, codeText).result())
        .isEqualTo(Result.ALREADY_CONSUMED);
  }

  @Test
  void key_rotation_end_to_end() throws Exception {
    db.signUp("v_rot_old", "v_rot_new", "v_rot_gone");
    String signedWithOld = activationToken(OLD_KEY, "v_rot_old");
    String goneAfterRotation = activationToken(OLD_KEY, "v_rot_gone");
    // Rotation step 1: the verifier accepts the new key and still the old one.
    TokenVerifier during = verifier(NEW_KEY, OLD_KEY);
    assertThat(during.activate(signedWithOld).result()).isEqualTo(Result.ACTIVATED);
    assertThat(during.activate(activationToken(NEW_KEY, "v_rot_new")).result())
        .isEqualTo(Result.ACTIVATED);
    // Step 2: the old key is removed; what it signed no longer verifies.
    TokenVerifier after = verifier(NEW_KEY);
    assertThat(after.activate(goneAfterRotation).result()).isEqualTo(Result.BAD_SIGNATURE);
    assertThat(SigningKeys.parsePrevious(" " + "cafebabe".repeat(8) + " , " + "ab".repeat(32)))
        .hasSize(2);
  }

  @Test
  void a_concurrent_double_click_consumes_once() throws Exception {
    int clicks = 8;
    db.signUp("v_double");
    String token = activationToken(OLD_KEY, "v_double");
    TokenVerifier verifier = verifier(OLD_KEY);
    ExecutorService pool = Executors.newFixedThreadPool(clicks);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Result>> results = new ArrayList<>();
      for (int i = 0; i < clicks; i++) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return verifier.activate(token).result();
                }));
      }
      go.countDown();
      List<Result> all = new ArrayList<>();
      for (Future<Result> f : results) {
        all.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(all).containsOnlyOnce(Result.ACTIVATED);
      assertThat(all).filteredOn(r -> r != Result.ACTIVATED).containsOnly(Result.ALREADY_CONSUMED);
    } finally {
      pool.shutdownNow();
    }
  }
}
