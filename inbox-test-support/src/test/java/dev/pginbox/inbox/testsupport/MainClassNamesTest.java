package dev.pginbox.inbox.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No two main classes of the repository share a simple name: a reader who meets {@code Pages} or
 * {@code Html} should not have to check which module's it is, and two of them usually mean one was
 * copied. It reads the source trees ({@code src/main/java} of every module, the examples and the
 * benchmarks included), so it sees modules this one does not depend on.
 */
class MainClassNamesTest {

  /** Files every Java package may have, one per package. */
  private static final Set<String> PER_PACKAGE = Set.of("package-info.java", "module-info.java");

  @Test
  void no_two_main_classes_share_a_simple_name() {
    Map<String, List<Path>> byName =
        mainSources(repositoryRoot()).stream()
            .collect(
                Collectors.groupingBy(
                    p -> p.getFileName().toString(), TreeMap::new, Collectors.toList()));

    // A walk that found nothing would pass: it must see the modules at both ends of the build.
    assertThat(byName).containsKeys("InboxManager.java", "Main.java", "TestPostgres.java");
    Map<String, List<Path>> duplicates =
        byName.entrySet().stream()
            .filter(e -> e.getValue().size() > 1)
            .collect(
                Collectors.toMap(
                    Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    assertThat(duplicates).as("main classes sharing a simple name").isEmpty();
  }

  /** The checkout's root: the nearest directory above this module with the parent pom. */
  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("inbox-api"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
    return dir;
  }

  private static List<Path> mainSources(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !PER_PACKAGE.contains(p.getFileName().toString()))
          .map(root::relativize)
          .filter(MainClassNamesTest::isMainSource)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Under some module's {@code src/main/java}, not in build output or hidden directories. */
  private static boolean isMainSource(Path relative) {
    String path = relative.toString().replace('\\', '/');
    return path.contains("/src/main/java/")
        && !path.startsWith(".")
        && !path.contains("/target/")
        && !path.contains("/node_modules/");
  }
}
