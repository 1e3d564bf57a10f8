package dev.pginbox.inbox.http;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * The rule for files that hold secrets (the console's users file, the mailroom's key file), as
 * OpenSSH applies it to private keys: a file that every user may read or change is exposed, and so
 * is one the running user owns that its group may read or change (the owner can {@code chmod 600}
 * it). A file owned by someone else and readable through its group is not: that is how a secret
 * mounted by root reaches a non-root process (Kubernetes {@code fsGroup} with {@code defaultMode:
 * 0440}).
 */
public final class SecretFiles {

  /** How to fix an exposed file, for error messages. */
  public static final String FIX =
      "Run chmod 600 on it (for a Kubernetes secret: defaultMode 0400, or 0440 with fsGroup)";

  private SecretFiles() {}

  /**
   * The file's mode ({@code rw-r--r--}) when others may read or change it, or empty; empty too on a
   * file system without POSIX permissions, where there is nothing to check.
   */
  public static Optional<String> exposure(Path file) throws IOException {
    Set<PosixFilePermission> permissions;
    long owner;
    try {
      permissions = Files.getPosixFilePermissions(file);
      owner = ((Number) Files.getAttribute(file, "unix:uid")).longValue();
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.empty();
    }
    boolean everyone =
        permissions.contains(PosixFilePermission.OTHERS_READ)
            || permissions.contains(PosixFilePermission.OTHERS_WRITE);
    boolean ownGroup =
        owner == new UnixSystem().getUid()
            && (permissions.contains(PosixFilePermission.GROUP_READ)
                || permissions.contains(PosixFilePermission.GROUP_WRITE));
    return everyone || ownGroup
        ? Optional.of(PosixFilePermissions.toString(permissions))
        : Optional.empty();
  }
}
