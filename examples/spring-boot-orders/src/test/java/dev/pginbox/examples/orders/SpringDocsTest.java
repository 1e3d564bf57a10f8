package dev.pginbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of docs/spring-boot.md is code that this project compiles and a test runs:
 * each must appear, token for token, in a source of the example (main or test) or in the tests of
 * the starter or of inbox-migrations; every dependency a snippet names is one a project pom uses.
 */
class SpringDocsTest {

  private static final Path ROOT = Path.of("../..");
  private static final Pattern BLOCK = Pattern.compile("```(java|xml)\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern ARTIFACT =
      Pattern.compile(
          "<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>",
          Pattern.DOTALL);

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tokens(String code) {
    return code.replaceAll("\\s+", "");
  }

  private static String sources(String... dirs) throws IOException {
    StringBuilder all = new StringBuilder();
    for (String dir : dirs) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
        files
            .filter(
                f -> f.toString().endsWith(".java") || f.getFileName().toString().equals("pom.xml"))
            .forEach(f -> all.append(tokens(read(f))).append('\n'));
      }
    }
    return all.toString();
  }

  private static List<String[]> blocks() {
    List<String[]> blocks = new ArrayList<>();
    Matcher m = BLOCK.matcher(read(ROOT.resolve("docs/spring-boot.md")));
    while (m.find()) {
      blocks.add(new String[] {m.group(1), m.group(2)});
    }
    return blocks;
  }

  @Test
  void every_java_snippet_is_compiled_code_of_a_tested_module() throws IOException {
    String code =
        sources(
            "examples/spring-boot-orders/src",
            "inbox-spring-boot-starter/src/test",
            "inbox-migrations/src/test");
    List<String> missing = new ArrayList<>();
    int java = 0;
    for (String[] block : blocks()) {
      if (block[0].equals("java")) {
        java++;
        if (!code.contains(tokens(block[1]))) {
          missing.add(block[1]);
        }
      }
    }
    assertThat(java).isGreaterThanOrEqualTo(3);
    assertThat(missing).as("snippets found in no compiled source").isEmpty();
  }

  @Test
  void every_dependency_a_snippet_names_is_used_by_a_project_pom() throws IOException {
    String poms = sources("examples/spring-boot-orders", "inbox-spring-boot-starter");
    List<String> missing = new ArrayList<>();
    for (String[] block : blocks()) {
      Matcher m = ARTIFACT.matcher(block[1]);
      while (m.find()) {
        String artifact = "<artifactId>" + m.group(2) + "</artifactId>";
        if (!m.group(1).equals("dev.pginbox") && !poms.contains(artifact)) {
          missing.add(m.group(1) + ":" + m.group(2));
        }
      }
    }
    assertThat(missing).as("artifacts no pom of the project uses").isEmpty();
  }
}
