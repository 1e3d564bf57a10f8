package dev.mailroom.output;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads the original collector's lines ({@code <action>,<email>,<login>,<token>,<code>} records
 * joined by commas), for {@code send}. Unlike the original sender it does not panic on a long field
 * and does not desynchronise on a trailing comma or an empty line: it rejects the line with the
 * reason.
 */
public final class SenderLines {

  private static final Pattern TOKEN =
      Pattern.compile("[A-Za-z0-9_-]{" + TokenSigner.TOKEN_LENGTH + "}");
  private static final Pattern RECOVERY_CODE = Pattern.compile("[0-9]{5}");

  /** Why a line was rejected. */
  public static final class MalformedLineException extends Exception {
    private static final long serialVersionUID = 1L;

    public MalformedLineException(String message) {
      super(message);
    }
  }

  private SenderLines() {}

  public static List<OutputRecord> parse(String line) throws MalformedLineException {
    if (line.isEmpty()) {
      throw new MalformedLineException("empty line");
    }
    String[] fields = line.split(",", -1);
    if (fields.length % 5 != 0) {
      if (fields[fields.length - 1].isEmpty()) {
        throw new MalformedLineException("trailing comma");
      }
      throw new MalformedLineException(
          fields.length + " fields; records have 5 (action,email,login,token,code)");
    }
    List<OutputRecord> records = new ArrayList<>(fields.length / 5);
    for (int i = 0; i < fields.length; i += 5) {
      records.add(record(fields, i, i / 5 + 1));
    }
    return records;
  }

  private static OutputRecord record(String[] f, int at, int number) throws MalformedLineException {
    String where = "record " + number + ": ";
    TokenAction action;
    if (f[at].equals("1")) {
      action = TokenAction.ACTIVATION;
    } else if (f[at].equals("2")) {
      action = TokenAction.PASSWORD_RECOVERY;
    } else {
      throw new MalformedLineException(where + "action must be 1 or 2, got " + excerpt(f[at]));
    }
    if (f[at + 1].isEmpty() || f[at + 2].isEmpty()) {
      throw new MalformedLineException(where + "empty email or login");
    }
    if (!TOKEN.matcher(f[at + 3]).matches()) {
      throw new MalformedLineException(where + "the token is not 86 base64url characters");
    }
    String code = f[at + 4];
    if (action == TokenAction.PASSWORD_RECOVERY
        ? !RECOVERY_CODE.matcher(code).matches()
        : code.isEmpty()) {
      throw new MalformedLineException(where + "the code must be 5 digits");
    }
    return new OutputRecord(action, f[at + 1], f[at + 2], f[at + 3], code);
  }

  private static String excerpt(String value) {
    return value.length() > 20 ? value.substring(0, 20) + "..." : value;
  }
}
