package dev.mailroom.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The embedded server's superuser password, kept in {@code <data dir>/pgpass} (mode 600) in libpq's
 * password file format, so {@code PGPASSFILE=<data dir>/pgpass psql -h 127.0.0.1 ...} connects
 * without the password ever being printed.
 */
final class ServerPassword {

  static final String FILE_NAME = "pgpass";
  static final String USER = "postgres";

  private static final Pattern LINE = Pattern.compile("[^:]*:\\*:\\*:postgres:([0-9a-f]{64})");
  private static final int MAX_FILE_BYTES = 4096;

  private ServerPassword() {}

  static Path file(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  /** The stored password, or empty when the file does not exist. */
  static Optional<String> read(Path dataDir) throws IOException {
    Path file = file(dataDir);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    if (!Files.isRegularFile(file) || Files.size(file) > MAX_FILE_BYTES) {
      throw new IOException(file + " is not the embedded server's password file");
    }
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
    if (!PosixFilePermissions.fromString("rw-------").containsAll(permissions)) {
      throw new PrivateDirectory.UnsafeDirectoryException(
          file
              + " may be read or changed by other users (mode "
              + PosixFilePermissions.toString(permissions)
              + "); run chmod 600 on it");
    }
    for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
      var m = LINE.matcher(line.strip());
      if (m.matches()) {
        return Optional.of(m.group(1));
      }
    }
    throw new IOException(file + " holds no password for the user " + USER);
  }

  /** A new random password (hex: no character that needs quoting anywhere). */
  static String generate() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Writes the file atomically (mode 600 from the start, then renamed into place). */
  static void write(Path dataDir, String password) throws IOException {
    Path temporary =
        Files.createTempFile(
            dataDir,
            ".pgpass-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.writeString(
          temporary,
          "# the embedded PostgreSQL's superuser; use with PGPASSFILE="
              + file(dataDir)
              + "\n"
              + "127.0.0.1:*:*:"
              + USER
              + ":"
              + password
              + "\n"
              + "localhost:*:*:"
              + USER
              + ":"
              + password
              + "\n",
          StandardCharsets.US_ASCII);
      Files.move(temporary, file(dataDir), StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
