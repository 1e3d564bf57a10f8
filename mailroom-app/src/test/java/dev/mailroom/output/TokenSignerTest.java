package dev.mailroom.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reference test vectors of the original collector, byte for byte. */
class TokenSignerTest {

  static final byte[] KEY = HexFormat.of().parseHex("cafebabe".repeat(8));
  static final byte[] SECRET = new byte[32];

  static {
    for (int i = 0; i < 32; i++) {
      SECRET[i] = (byte) i;
    }
  }

  static final String ACTIVATION_12345 =
      "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh_Ri3Yy9eHzSYzQ27mlxgmLvANFsuUMXQadIzL8Ldn_vg";
  static final String RECOVERY_54321 =
      "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9o1KiqBNtbi9nUHmKwSTQ45LTukLRPR8yRVaWcdcbNHg";

  private final TokenSigner signer = new TokenSigner(KEY);

  @Test
  void a_token_whose_unused_trailing_bits_are_set_is_refused() {
    // 64 bytes encode to 86 characters; the last one carries 2 bits of data and 4 unused bits.
    // 'g' and 'h' decode to the same bytes, so a lenient decoder would accept a second spelling of
    // every token, and a tampered link would still verify.
    assertThat(signer.verify(TokenAction.ACTIVATION, ACTIVATION_12345, null)).isTrue();
    String otherSpelling = ACTIVATION_12345.substring(0, ACTIVATION_12345.length() - 1) + "h";
    assertThat(signer.verify(TokenAction.ACTIVATION, otherSpelling, null)).isFalse();
  }

  @Test
  void activation_vector_matches_the_original() {
    assertThat(signer.sign(TokenAction.ACTIVATION, SECRET, "12345")).isEqualTo(ACTIVATION_12345);
  }

  @Test
  void password_recovery_vector_matches_the_original() {
    assertThat(signer.sign(TokenAction.PASSWORD_RECOVERY, SECRET, "54321"))
        .isEqualTo(RECOVERY_54321);
  }

  @Test
  void the_reference_line_is_reproduced() {
    List<OutputRecord> records =
        List.of(
            new OutputRecord(
                TokenAction.ACTIVATION,
                "a@x.test",
                "alice",
                signer.sign(TokenAction.ACTIVATION, SECRET, "12345"),
                "12345"),
            new OutputRecord(
                TokenAction.PASSWORD_RECOVERY,
                "b@x.test",
                "bob",
                signer.sign(TokenAction.PASSWORD_RECOVERY, SECRET, "54321"),
                "54321"));
    assertThat(OutputLines.of(records))
        .containsExactly(
            "1,a@x.test,alice,AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh_Ri3Yy9eHzSYzQ27mlxgmLvANFsuUMXQadIzL8Ldn_vg,12345,"
                + "2,b@x.test,bob,AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9o1KiqBNtbi9nUHmKwSTQ45LTukLRPR8yRVaWcdcbNHg,54321");
  }

  @Test
  void activation_does_not_sign_the_code() {
    assertThat(signer.sign(TokenAction.ACTIVATION, SECRET, "99999")).isEqualTo(ACTIVATION_12345);
  }

  @Test
  void tokens_are_86_url_safe_characters() {
    for (int i = 0; i < 200; i++) {
      byte[] secret = new byte[32];
      new java.util.Random(i).nextBytes(secret);
      String token = signer.sign(TokenAction.PASSWORD_RECOVERY, secret, "00042");
      assertThat(token).hasSize(TokenSigner.TOKEN_LENGTH).matches("[A-Za-z0-9_-]+");
    }
  }

  @Test
  void verify_accepts_own_tokens_and_rejects_tampering() {
    assertThat(signer.verify(TokenAction.ACTIVATION, ACTIVATION_12345, null)).isTrue();
    assertThat(signer.verify(TokenAction.PASSWORD_RECOVERY, RECOVERY_54321, "54321")).isTrue();
    assertThat(signer.verify(TokenAction.PASSWORD_RECOVERY, RECOVERY_54321, "54322")).isFalse();
    assertThat(signer.verify(TokenAction.PASSWORD_RECOVERY, ACTIVATION_12345, "12345")).isFalse();
    assertThat(signer.verify(TokenAction.ACTIVATION, "B" + ACTIVATION_12345.substring(1), null))
        .isFalse();
    assertThat(signer.verify(TokenAction.ACTIVATION, "not a token", null)).isFalse();
    byte[] otherKey = KEY.clone();
    otherKey[0] ^= 1;
    assertThat(new TokenSigner(otherKey).verify(TokenAction.ACTIVATION, ACTIVATION_12345, null))
        .isFalse();
  }

  @Test
  void bad_secrets_keys_and_recovery_codes_are_rejected() {
    assertThatThrownBy(() -> signer.sign(TokenAction.ACTIVATION, new byte[31], "12345"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> signer.sign(TokenAction.PASSWORD_RECOVERY, SECRET, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> signer.sign(TokenAction.PASSWORD_RECOVERY, SECRET, "1234"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenSigner(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
