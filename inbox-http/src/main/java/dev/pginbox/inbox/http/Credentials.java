package dev.pginbox.inbox.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may run the console's write actions: basic-auth users (name and password) and/or one bearer
 * token (for scripts; recorded in the audit as {@code tokenName}). There is no default: without
 * credentials the console is read-only. Passwords and the token must be at least {@value
 * #MIN_SECRET_LENGTH} characters.
 *
 * @param users name to password
 * @param token the bearer token, or null
 * @param tokenName the name the token acts as in {@code inbox.operator_log}
 */
public record Credentials(Map<String, String> users, String token, String tokenName) {

  public static final int MIN_SECRET_LENGTH = 12;

  /** The environment variables {@link #fromEnvironment} reads. */
  public static final String TOKEN_ENV = "INBOX_HTTP_TOKEN";

  public static final String USERS_ENV = "INBOX_HTTP_USERS";
  public static final String USERS_FILE_ENV = "INBOX_HTTP_USERS_FILE";

  /** A users file is read up to this size: it holds a few lines. */
  private static final long MAX_FILE_BYTES = 64 * 1024;

  public Credentials {
    users = Map.copyOf(users);
    users.forEach(
        (name, password) -> {
          if (!name.matches("[A-Za-z0-9._@-]{1,64}")) {
            throw new IllegalArgumentException(
                "user names are 1 to 64 characters A-Z, a-z, 0-9, '.', '_', '@', '-'");
          }
          requireStrong(password, "the password of " + name);
        });
    if (token != null) {
      requireStrong(token, "the token");
      Objects.requireNonNull(tokenName, "tokenName");
    }
  }

  public static Credentials none() {
    return new Credentials(Map.of(), null, null);
  }

  public boolean any() {
    return !users.isEmpty() || token != null;
  }

  /**
   * {@code INBOX_HTTP_TOKEN} (a bearer token, acting as "token"), {@code INBOX_HTTP_USERS} ({@code
   * name:password} pairs separated by commas) and {@code INBOX_HTTP_USERS_FILE} (a file of {@code
   * name:password} lines; # starts a comment). None set: no credentials.
   */
  public static Credentials fromEnvironment(Map<String, String> env) {
    Map<String, String> users = new LinkedHashMap<>();
    String inline = env.get(USERS_ENV);
    if (inline != null && !inline.isBlank()) {
      for (String pair : inline.split(",")) {
        addUser(users, pair.strip(), USERS_ENV);
      }
    }
    String file = env.get(USERS_FILE_ENV);
    if (file != null && !file.isBlank()) {
      for (String line : readBounded(Path.of(file)).split("\n")) {
        String entry = line.strip();
        if (!entry.isEmpty() && !entry.startsWith("#")) {
          addUser(users, entry, USERS_FILE_ENV);
        }
      }
    }
    String token = Optional.ofNullable(env.get(TOKEN_ENV)).filter(t -> !t.isBlank()).orElse(null);
    return new Credentials(users, token, token == null ? null : "token");
  }

  private static void addUser(Map<String, String> users, String pair, String source) {
    int colon = pair.indexOf(':');
    if (colon < 1) {
      // The entry may hold a password: never echo it.
      throw new IllegalArgumentException(source + ": expected name:password entries");
    }
    users.put(pair.substring(0, colon), pair.substring(colon + 1));
  }

  /** The users file: a regular file, private like a key ({@link SecretFiles}), and small. */
  private static String readBounded(Path file) {
    try {
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(USERS_FILE_ENV + ": " + file + " is not a regular file");
      }
      Optional<String> mode = SecretFiles.exposure(file);
      if (mode.isPresent()) {
        throw new IllegalArgumentException(
            USERS_FILE_ENV
                + ": "
                + file
                + " may be read or changed by other users (mode "
                + mode.get()
                + "): it holds the console's passwords. "
                + SecretFiles.FIX);
      }
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new IllegalArgumentException(
            USERS_FILE_ENV + ": " + file + " is larger than " + MAX_FILE_BYTES + " bytes");
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(USERS_FILE_ENV + ": cannot read " + file, e);
    }
  }

  private static void requireStrong(String secret, String what) {
    if (secret == null || secret.length() < MIN_SECRET_LENGTH) {
      throw new IllegalArgumentException(
          what + " must be at least " + MIN_SECRET_LENGTH + " characters");
    }
  }

  @Override
  public String toString() {
    return "Credentials[users=" + users.keySet() + ", token=" + (token != null) + "]";
  }
}
