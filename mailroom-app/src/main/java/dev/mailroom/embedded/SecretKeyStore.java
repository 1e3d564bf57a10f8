package dev.mailroom.embedded;

import dev.mailroom.config.ConfigException;
import dev.mailroom.config.KeyFile;
import dev.mailroom.output.TokenSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Embedded mode without MAILROOM_SECRET_KEY: the key is generated once and kept next to the data
 * ({@code <data dir>/secret.key}, owner-only), so tokens keep verifying across restarts.
 */
public final class SecretKeyStore {

  private SecretKeyStore() {}

  public record Loaded(byte[] key, Path file, boolean generated) {}

  /** The key generated earlier in {@code dataDir}, if there is one (never generates). */
  public static Optional<byte[]> loadExisting(Path dataDir) throws IOException {
    if (!Files.exists(dataDir.resolve("secret.key"))) {
      return Optional.empty();
    }
    return Optional.of(loadOrGenerate(dataDir).key());
  }

  public static Loaded loadOrGenerate(Path dataDir) throws IOException {
    Path file = dataDir.resolve("secret.key");
    if (Files.exists(file)) {
      String hex = KeyFile.read(file, "the generated key file").strip();
      if (!hex.matches("[0-9a-fA-F]{64}")) {
        throw new ConfigException(file + " must contain a 64-character hex string");
      }
      return new Loaded(HexFormat.of().parseHex(hex.toLowerCase()), file, false);
    }
    byte[] key = new byte[TokenSigner.KEY_LENGTH];
    new SecureRandom().nextBytes(key);
    Files.createDirectories(dataDir);
    // Written in full to a private temporary file, then linked into place: a crash never leaves
    // an empty key file, and of two first starts at once only one key wins (link never replaces).
    Path temporary =
        Files.createTempFile(
            dataDir,
            ".secret-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.writeString(temporary, HexFormat.of().formatHex(key) + "\n", StandardCharsets.UTF_8);
      Files.createLink(file, temporary);
    } catch (FileAlreadyExistsException e) {
      return loadOrGenerate(dataDir);
    } finally {
      Files.deleteIfExists(temporary);
    }
    return new Loaded(key, file, true);
  }
}
