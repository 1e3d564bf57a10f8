package dev.mailroom.verify;

import dev.mailroom.config.ConfigException;
import dev.mailroom.output.TokenAction;
import dev.mailroom.output.TokenSigner;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The keys a token may be signed with: the current one (MAILROOM_SECRET_KEY) and, during a
 * rotation, the previous ones (MAILROOM_PREVIOUS_SECRET_KEYS, comma-separated hex).
 */
public final class SigningKeys {

  public static final String PREVIOUS_SECRET_KEYS = "MAILROOM_PREVIOUS_SECRET_KEYS";
  private static final Pattern HEX_KEY = Pattern.compile("[0-9a-fA-F]{64}");

  private final List<TokenSigner> signers;

  public SigningKeys(byte[] current, List<byte[]> previous) {
    List<TokenSigner> all = new ArrayList<>();
    all.add(new TokenSigner(current));
    for (byte[] key : previous) {
      all.add(new TokenSigner(key));
    }
    this.signers = List.copyOf(all);
  }

  /** The previous keys of MAILROOM_PREVIOUS_SECRET_KEYS; never echoes a value. */
  public static List<byte[]> parsePrevious(String value) {
    List<byte[]> keys = new ArrayList<>();
    if (value == null || value.isBlank()) {
      return keys;
    }
    String[] parts = value.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      String hex = parts[i].strip();
      if (!HEX_KEY.matcher(hex).matches()) {
        throw new ConfigException(
            PREVIOUS_SECRET_KEYS
                + " must be comma-separated 64-character hex strings; entry "
                + (i + 1)
                + " is not");
      }
      keys.add(HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT)));
    }
    return keys;
  }

  /**
   * Whether any key signed this token. Every key is tried whatever the earlier ones said, and each
   * comparison is constant-time, so the time taken tells nothing about the token or which key.
   */
  boolean verify(TokenAction action, String token, String code) {
    boolean ok = false;
    for (TokenSigner signer : signers) {
      ok |= signer.verify(action, token, code);
    }
    return ok;
  }
}
