package dev.mailroom.config;

import dev.pginbox.inbox.http.SecretFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads a signing key file (MAILROOM_SECRET_KEY_FILE, the embedded mode's {@code secret.key}) the
 * way OpenSSH reads a private key ({@link SecretFiles}: refused when others may read it). Reading
 * is bounded, and only regular files are read ({@code /dev/zero} or a FIFO is an error, not a
 * hang).
 */
public final class KeyFile {

  /** A hex key with a line break is 65 bytes; anything much larger is not a key file. */
  static final int MAX_BYTES = 1024;

  private KeyFile() {}

  /** The file's text, or a {@link ConfigException} that names {@code what} and the fix. */
  public static String read(Path file, String what) {
    try {
      if (!Files.isRegularFile(file)) {
        if (!Files.exists(file)) {
          throw new NoSuchFileException(file.toString());
        }
        throw new ConfigException(what + " " + file + " is not a regular file");
      }
      requirePrivate(file, what);
      try (InputStream in = Files.newInputStream(file)) {
        byte[] bytes = in.readNBytes(MAX_BYTES + 1);
        if (bytes.length > MAX_BYTES) {
          throw new ConfigException(
              what + " " + file + " is larger than " + MAX_BYTES + " bytes: not a key file");
        }
        return new String(bytes, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new ConfigException("cannot read " + what + " " + file + ": " + e);
    }
  }

  private static void requirePrivate(Path file, String what) throws IOException {
    Optional<String> mode = SecretFiles.exposure(file);
    if (mode.isPresent()) {
      throw new ConfigException(
          what
              + " "
              + file
              + " may be read or changed by other users (mode "
              + mode.get()
              + "): the key signs every token. "
              + SecretFiles.FIX);
    }
  }
}
