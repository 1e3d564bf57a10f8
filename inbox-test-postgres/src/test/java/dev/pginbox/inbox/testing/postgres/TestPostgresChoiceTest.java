package dev.pginbox.inbox.testing.postgres;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which server {@link TestPostgres} picks, and what it says on the way. */
class TestPostgresChoiceTest {

  /** Run in a JVM of its own (TestPostgres picks once per JVM): prints the server's kind. */
  public static void main(String[] args) {
    System.out.println("kind=" + TestPostgres.shared().kind());
    System.exit(0);
  }

  @Test
  void without_docker_the_embedded_server_starts_and_no_error_is_logged(@TempDir Path dir)
      throws Exception {
    assumeFalse(DockerProbe.dockerConfigured(), "a Docker is configured here");
    Path output = dir.resolve("output.txt");
    ProcessBuilder jvm =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                TestPostgresChoiceTest.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    jvm.environment().remove(TestPostgres.URL_VARIABLE);
    jvm.environment().remove(TestPostgres.TESTCONTAINERS_VARIABLE);

    Process process = jvm.start();
    boolean exited = process.waitFor(180, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly();
    }
    String said = Files.readString(output, UTF_8);

    assertThat(exited).as(said).isTrue();
    assertThat(said)
        .contains("kind=embedded")
        .doesNotContain(" ERROR ") // a record at level ERROR, as slf4j-simple writes it
        .doesNotContain("valid Docker environment");
  }

  @Test
  void docker_counts_as_configured_by_a_variable_a_configuration_file_or_a_socket() {
    Path home = Path.of("/home/someone");
    Set<Path> nothing = Set.of();

    assertThat(DockerProbe.dockerConfigured(Map.of(), home, "Linux", nothing::contains)).isFalse();
    assertThat(
            DockerProbe.dockerConfigured(
                Map.of("DOCKER_HOST", "tcp://docker:2375"), home, "Linux", nothing::contains))
        .isTrue();
    assertThat(
            DockerProbe.dockerConfigured(
                Map.of("TESTCONTAINERS_HOST_OVERRIDE", "docker"), home, "Linux", nothing::contains))
        .isTrue();
    assertThat(
            DockerProbe.dockerConfigured(
                Map.of(), home, "Linux", Set.of(Path.of("/var/run/docker.sock"))::contains))
        .isTrue();
    assertThat(
            DockerProbe.dockerConfigured(
                Map.of(),
                home,
                "Linux",
                Set.of(home.resolve(".testcontainers.properties"))::contains))
        .isTrue();
    assertThat(
            DockerProbe.dockerConfigured(
                Map.of("XDG_RUNTIME_DIR", "/run/user/1000"),
                home,
                "Linux",
                Set.of(Path.of("/run/user/1000/docker.sock"))::contains))
        .isTrue();
    assertThat(DockerProbe.dockerConfigured(Map.of(), home, "Windows 11", nothing::contains))
        .isTrue();
  }
}
