package dev.mailroom.output;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs tokens exactly as the original collector: {@code base64url(secret || mac)} without padding,
 * where {@code mac = HMAC-SHA256(key, "/activate" || secret)} for an activation and {@code
 * HMAC-SHA256(key, "/recover" || secret || code)} for a password recovery. 32 + 32 bytes always
 * encode to 86 characters.
 */
public final class TokenSigner {

  public static final int KEY_LENGTH = 32;
  public static final int SECRET_LENGTH = 32;
  public static final int CODE_LENGTH = 5;
  public static final int TOKEN_LENGTH = 86;

  private static final String ALGORITHM = "HmacSHA256";
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final SecretKeySpec key;

  /**
   * One initialised Mac per thread: Mac.getInstance + init per token was a provider lookup and a
   * key schedule each time. doFinal() resets the Mac to its initialised state for the next token.
   */
  private final ThreadLocal<Mac> macs;

  public TokenSigner(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length != KEY_LENGTH) {
      throw new IllegalArgumentException("the signing key must be " + KEY_LENGTH + " bytes");
    }
    this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    this.macs = ThreadLocal.withInitial(this::newMac);
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available", e);
    }
  }

  /**
   * The signed token of {@code secret}. A password recovery signs its 5-character code too; an
   * activation ignores the code (the original printed it but never signed it).
   *
   * @throws IllegalArgumentException when the secret is not 32 bytes, or a recovery code is not 5
   *     ASCII characters (the original read past the string there)
   */
  public String sign(TokenAction action, byte[] secret, String code) {
    byte[] mac = mac(action, secret, code);
    byte[] combined = new byte[SECRET_LENGTH + mac.length];
    System.arraycopy(secret, 0, combined, 0, SECRET_LENGTH);
    System.arraycopy(mac, 0, combined, SECRET_LENGTH, mac.length);
    return ENCODER.encodeToString(combined);
  }

  /**
   * Whether {@code token} was signed with this key for {@code action} (and {@code code}); the
   * comparison is constant-time. What a frontend does before it looks the secret up.
   */
  public boolean verify(TokenAction action, String token, String code) {
    byte[] decoded;
    try {
      decoded = DECODER.decode(token);
    } catch (IllegalArgumentException e) {
      return false;
    }
    // Only the canonical spelling: the decoder ignores the last character's unused bits, so
    // without this check every token would have several spellings that verify.
    if (decoded.length != SECRET_LENGTH * 2 || !ENCODER.encodeToString(decoded).equals(token)) {
      return false;
    }
    byte[] secret = java.util.Arrays.copyOfRange(decoded, 0, SECRET_LENGTH);
    byte[] mac = java.util.Arrays.copyOfRange(decoded, SECRET_LENGTH, decoded.length);
    try {
      return MessageDigest.isEqual(mac, mac(action, secret, code));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private byte[] mac(TokenAction action, byte[] secret, String code) {
    Objects.requireNonNull(action, "action");
    if (secret == null || secret.length != SECRET_LENGTH) {
      throw new IllegalArgumentException("a token secret must be " + SECRET_LENGTH + " bytes");
    }
    // Validated before the Mac sees any input, so a rejected code leaves no state behind.
    byte[] recovery = action == TokenAction.PASSWORD_RECOVERY ? recoveryCode(code) : null;
    Mac mac = macs.get();
    mac.update(action.path().getBytes(StandardCharsets.US_ASCII));
    mac.update(secret);
    if (recovery != null) {
      mac.update(recovery);
    }
    return mac.doFinal();
  }

  private static byte[] recoveryCode(String code) {
    if (code == null
        || code.length() != CODE_LENGTH
        || !StandardCharsets.US_ASCII.newEncoder().canEncode(code)) {
      throw new IllegalArgumentException(
          "a password recovery code must be " + CODE_LENGTH + " ASCII characters");
    }
    return code.getBytes(StandardCharsets.US_ASCII);
  }
}
