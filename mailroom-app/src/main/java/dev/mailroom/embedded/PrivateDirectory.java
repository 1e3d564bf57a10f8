package dev.mailroom.embedded;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Directories that only the running user may change. Embedded mode keeps the server's binaries, its
 * data, the signing key and the server password in such directories: anyone else who could write
 * there could replace {@code bin/postgres} or read the key.
 */
final class PrivateDirectory {

  static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

  private PrivateDirectory() {}

  /**
   * Creates {@code dir} (mode 700) if missing, then checks it like {@link #requireSafe}. Returns
   * its absolute, normalized path.
   */
  static Path create(Path dir) throws IOException {
    Path absolute = dir.toAbsolutePath().normalize();
    if (!Files.exists(absolute)) {
      Files.createDirectories(absolute.getParent());
      try {
        Files.createDirectory(absolute, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (FileAlreadyExistsException e) {
        // created by a concurrent start: checked below like any existing directory
      } catch (UnsupportedOperationException e) {
        throw new UnsafeDirectoryException(
            absolute + ": embedded mode needs a file system with POSIX permissions");
      }
    }
    requireSafe(absolute);
    return absolute;
  }

  /**
   * Refuses a directory that is not owned by the running user or that group or others may write to
   * (they could swap what is in it).
   */
  static void requireSafe(Path dir) throws IOException {
    Path real = dir.toRealPath();
    if (!Files.isDirectory(real)) {
      throw new UnsafeDirectoryException(dir + " is not a directory");
    }
    requireOwnedAndNotWritableByOthers(real, dir);
  }

  /**
   * Refuses a tree in which any file or directory is not the running user's or is writable by group
   * or others. Symbolic links are checked themselves, not followed.
   */
  static void requireSafeTree(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        requireOwnedAndNotWritableByOthers(p, p);
      }
    }
  }

  private static void requireOwnedAndNotWritableByOthers(Path path, Path shown) throws IOException {
    PosixFileAttributes attributes =
        Files.readAttributes(path, PosixFileAttributes.class, NOFOLLOW_LINKS);
    long owner = ((Number) Files.getAttribute(path, "unix:uid", NOFOLLOW_LINKS)).longValue();
    long me = currentUid();
    if (owner != me) {
      throw new UnsafeDirectoryException(
          shown
              + " belongs to another user (uid "
              + owner
              + ", this process runs as uid "
              + me
              + "); embedded mode only uses files of its own user: remove it or choose another"
              + " directory");
    }
    if (attributes.isSymbolicLink()) {
      return;
    }
    Set<PosixFilePermission> permissions = attributes.permissions();
    if (permissions.contains(PosixFilePermission.GROUP_WRITE)
        || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
      throw new UnsafeDirectoryException(
          shown
              + " is writable by other users (mode "
              + PosixFilePermissions.toString(permissions)
              + "); embedded mode refuses it: remove it (it is re-created) or run chmod go-w on it");
    }
  }

  static long currentUid() {
    return new UnixSystem().getUid();
  }

  /** A directory or file others could change: embedded mode does not start. */
  static final class UnsafeDirectoryException extends IOException {
    private static final long serialVersionUID = 1L;

    UnsafeDirectoryException(String message) {
      super(message);
    }
  }
}
