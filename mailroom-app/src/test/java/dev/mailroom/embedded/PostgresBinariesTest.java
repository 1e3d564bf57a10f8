package dev.mailroom.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server binaries: private, complete or absent, and never used once others could swap them. */
class PostgresBinariesTest {

  /** Extracts into args[0] in a JVM of its own (so a test can limit its heap or kill it). */
  public static void main(String[] args) throws Exception {
    System.out.println(PostgresBinaries.prepare(Path.of(args[0])));
  }

  private static Process extractInAnotherJvm(Path cache, String heap) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                heap,
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                PostgresBinariesTest.class.getName(),
                cache.toString()));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static List<String> names(Path dir) throws Exception {
    try (Stream<Path> children = Files.list(dir)) {
      return children.map(p -> p.getFileName().toString()).toList();
    }
  }

  private static void assertRuns(Path binaries) throws Exception {
    Process version =
        new ProcessBuilder(binaries.resolve("bin/postgres").toString(), "--version")
            .redirectErrorStream(true)
            .start();
    String out = new String(version.getInputStream().readAllBytes());
    assertThat(version.waitFor()).isZero();
    assertThat(out).contains("postgres (PostgreSQL) 18");
  }

  @Test
  void extracts_into_a_private_directory_even_with_a_small_heap(@TempDir Path tmp)
      throws Exception {
    Path cache = tmp.resolve("cache");
    Process p = extractInAnotherJvm(cache, "-Xmx32m");
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
    Path binaries = Path.of(out.strip());
    assertThat(binaries.getParent()).isEqualTo(cache);
    assertThat(Files.getPosixFilePermissions(cache))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(Files.getPosixFilePermissions(binaries))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertRuns(binaries);
    assertThat(PostgresBinaries.prepare(cache)).isEqualTo(binaries);
  }

  @Test
  void a_killed_extraction_leaves_nothing_that_breaks_the_next_start(@TempDir Path tmp)
      throws Exception {
    Path cache = tmp.resolve("cache");
    Process p = extractInAnotherJvm(cache, "-Xmx32m");
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  Files.isDirectory(cache)
                      && names(cache).stream().anyMatch(n -> n.startsWith(".extract-"))
                      && Files.exists(firstLeftover(cache).resolve("share")));
    } finally {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(names(cache)).noneMatch(n -> n.startsWith("postgres-"));

    Path binaries = PostgresBinaries.prepare(cache);
    assertRuns(binaries);
    assertThat(names(cache)).noneMatch(n -> n.startsWith(".extract-"));
  }

  private static Path firstLeftover(Path cache) throws Exception {
    return cache.resolve(
        names(cache).stream().filter(n -> n.startsWith(".extract-")).findFirst().orElseThrow());
  }

  @Test
  void binaries_others_can_write_to_are_refused(@TempDir Path tmp) throws Exception {
    Path cache = tmp.resolve("cache");
    Path binaries = PostgresBinaries.prepare(cache);

    Path postgres = binaries.resolve("bin/postgres");
    Files.setPosixFilePermissions(postgres, PosixFilePermissions.fromString("rwxr-xrwx"));
    assertThatThrownBy(() -> PostgresBinaries.prepare(cache))
        .isInstanceOf(PrivateDirectory.UnsafeDirectoryException.class)
        .hasMessageContaining(postgres + " is writable by other users");
    Files.setPosixFilePermissions(postgres, PosixFilePermissions.fromString("rwxr-xr-x"));

    Files.setPosixFilePermissions(binaries, PosixFilePermissions.fromString("rwxrwx---"));
    assertThatThrownBy(() -> PostgresBinaries.prepare(cache))
        .isInstanceOf(PrivateDirectory.UnsafeDirectoryException.class)
        .hasMessageContaining("is writable by other users");
    Files.setPosixFilePermissions(binaries, PrivateDirectory.OWNER_ONLY);

    Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> PostgresBinaries.prepare(cache))
        .isInstanceOf(PrivateDirectory.UnsafeDirectoryException.class)
        .hasMessageContaining(cache + " is writable by other users");
    Files.setPosixFilePermissions(cache, PrivateDirectory.OWNER_ONLY);

    assertThat(PostgresBinaries.prepare(cache)).isEqualTo(binaries);
  }

  @Test
  void a_directory_of_another_user_is_refused(@TempDir Path tmp) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        PrivateDirectory.currentUid() == 0, "needs root to give a directory to another user");
    Path cache =
        Files.createDirectory(
            tmp.resolve("cache"),
            PosixFilePermissions.asFileAttribute(PrivateDirectory.OWNER_ONLY));
    Files.setAttribute(cache, "unix:uid", 65534);
    assertThatThrownBy(() -> PostgresBinaries.prepare(cache))
        .isInstanceOf(PrivateDirectory.UnsafeDirectoryException.class)
        .hasMessageContaining("belongs to another user (uid 65534");
  }
}
