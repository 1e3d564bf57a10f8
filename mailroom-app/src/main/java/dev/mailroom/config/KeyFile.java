package dev.mailroom.config;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Reads a signing key file (MAILROOM_SECRET_KEY_FILE, the embedded mode's {@code secret.key}) the
 * way OpenSSH reads a private key: a file that every user may read is refused, and so is one the
 * running user owns that its group may read (the owner can {@code chmod 600} it). A file owned by
 * someone else and readable through its group is accepted: that is how a secret mounted by root
 * reaches a non-root process (Kubernetes {@code fsGroup} with {@code defaultMode: 0440}). Reading
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
    Set<PosixFilePermission> permissions;
    long owner;
    try {
      permissions = Files.getPosixFilePermissions(file);
      owner = ((Number) Files.getAttribute(file, "unix:uid")).longValue();
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return; // no POSIX permissions on this file system: nothing to check
    }
    boolean everyone =
        permissions.contains(PosixFilePermission.OTHERS_READ)
            || permissions.contains(PosixFilePermission.OTHERS_WRITE);
    boolean ownGroup =
        owner == new UnixSystem().getUid()
            && (permissions.contains(PosixFilePermission.GROUP_READ)
                || permissions.contains(PosixFilePermission.GROUP_WRITE));
    if (everyone || ownGroup) {
      throw new ConfigException(
          what
              + " "
              + file
              + " may be read or changed by other users (mode "
              + PosixFilePermissions.toString(permissions)
              + "): the key signs every token. Run chmod 600 on it (for a Kubernetes secret:"
              + " defaultMode 0400, or 0440 with fsGroup)");
    }
  }
}
