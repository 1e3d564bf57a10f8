package dev.mailroom.embedded;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL server binaries shipped in the jar (the io.zonky {@code postgres-<os>-<arch>.txz}
 * archive of the build platform), extracted once per archive into a private cache directory.
 *
 * <p>Extraction streams (an 8 MiB xz dictionary and small copy buffers, whatever the heap), goes
 * into a temporary directory and becomes visible by one rename: a start that dies half-way (killed,
 * out of memory) leaves only a temporary directory, which the next start deletes. A file lock keeps
 * two starts from extracting at once. Every start checks that the extracted tree is still owned by
 * the running user and writable by nobody else, so another local user cannot swap {@code
 * bin/postgres}.
 */
final class PostgresBinaries {

  /** The most memory the xz decoder may take (the archives use an 8 MiB dictionary). */
  private static final int XZ_MEMORY_LIMIT_KIB = 64 * 1024;

  private static final String TEMPORARY_PREFIX = ".extract-";
  private static final Object IN_PROCESS_LOCK = new Object();

  private PostgresBinaries() {}

  /** The directory holding {@code bin/}, {@code lib/} and {@code share/}, ready to run. */
  static Path prepare(Path cacheRoot) throws IOException {
    String name = archiveName();
    URL archive = PostgresBinaries.class.getClassLoader().getResource(name);
    if (archive == null) {
      throw new IOException(
          "this build carries no PostgreSQL binaries for this platform ("
              + name
              + "); build the jar on this platform, or with its profile (see docs/mailroom.md), or"
              + " set MAILROOM_DATABASE_URL");
    }
    Path root = PrivateDirectory.create(cacheRoot);
    Path target = root.resolve("postgres-" + digest(archive));
    synchronized (IN_PROCESS_LOCK) {
      try (FileChannel lockFile =
              FileChannel.open(
                  root.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock lock = lockFile.lock()) {
        if (!Files.exists(target)) {
          deleteLeftovers(root);
          extract(archive, root, target);
        }
      }
    }
    PrivateDirectory.requireSafe(target);
    PrivateDirectory.requireSafeTree(target);
    return target;
  }

  /** zonky's naming: {@code postgres-linux-x86_64.txz}, {@code postgres-darwin-arm_64.txz}. */
  static String archiveName() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String system =
        os.startsWith("linux")
            ? "linux"
            : os.startsWith("mac") || os.startsWith("darwin") ? "darwin" : os.replace(' ', '_');
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String machine =
        switch (arch) {
          case "amd64", "x86_64" -> "x86_64";
          case "aarch64", "arm64" -> "arm_64";
          default -> arch;
        };
    return "postgres-" + system + "-" + machine + ".txz";
  }

  private static String digest(URL archive) throws IOException {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    try (InputStream in = new DigestInputStream(archive.openStream(), sha256)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(sha256.digest(), 0, 8);
  }

  private static void deleteLeftovers(Path root) throws IOException {
    try (Stream<Path> children = Files.list(root)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        if (child.getFileName().toString().startsWith(TEMPORARY_PREFIX)) {
          deleteTree(child);
        }
      }
    }
  }

  private static void extract(URL archive, Path root, Path target) throws IOException {
    Path temporary =
        Files.createTempDirectory(
            root,
            TEMPORARY_PREFIX,
            PosixFilePermissions.asFileAttribute(PrivateDirectory.OWNER_ONLY));
    try (InputStream in = new BufferedInputStream(archive.openStream());
        XZInputStream xz = new XZInputStream(in, XZ_MEMORY_LIMIT_KIB);
        TarArchiveInputStream tar = new TarArchiveInputStream(xz)) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        write(tar, entry, temporary);
      }
    } catch (IOException | RuntimeException | Error e) {
      deleteQuietly(temporary);
      throw e;
    }
    Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void write(TarArchiveInputStream tar, TarArchiveEntry entry, Path into)
      throws IOException {
    Path path = inside(into, into, entry.getName());
    if (entry.isDirectory()) {
      Files.createDirectories(path);
      return;
    }
    Files.createDirectories(path.getParent());
    if (entry.isSymbolicLink()) {
      Path link = Path.of(entry.getLinkName());
      if (link.isAbsolute()) {
        throw new IOException("archive link points outside the archive: " + entry.getName());
      }
      inside(into, path.getParent(), entry.getLinkName());
      Files.createSymbolicLink(path, link);
    } else if (entry.isLink()) {
      Files.createLink(path, inside(into, into, entry.getLinkName()));
    } else if (entry.isFile()) {
      Files.copy(tar, path);
      boolean executable = (entry.getMode() & 0100) != 0;
      Files.setPosixFilePermissions(
          path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
    } else {
      throw new IOException("unexpected entry in the PostgreSQL archive: " + entry.getName());
    }
  }

  /** {@code name} resolved against {@code base}, refused when it leaves {@code root}. */
  private static Path inside(Path root, Path base, String name) throws IOException {
    Path resolved = base.resolve(name).normalize();
    if (!resolved.startsWith(root)) {
      throw new IOException("archive entry points outside the archive: " + name);
    }
    return resolved;
  }

  private static void deleteQuietly(Path dir) {
    try {
      deleteTree(dir);
    } catch (IOException | UncheckedIOException e) {
      // left for the next start, which deletes every leftover before extracting
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
