package dev.pginbox.inbox.testing.postgres;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Whether a Docker engine is worth asking Testcontainers about: something points to one (an
 * environment variable, a Testcontainers or Docker configuration file, a socket where
 * Testcontainers looks). Without any, Testcontainers' own probe finds nothing too, but logs an
 * ERROR ("Could not find a valid Docker environment") on the way, which reads like a failure of
 * every test run that then goes on with the embedded server.
 *
 * <p>The places are Testcontainers' strategies: {@code DOCKER_HOST} and {@code docker.host}, {@code
 * tc.host} ({@code ~/.testcontainers.properties}, {@code TESTCONTAINERS_*}), a Docker context, the
 * sockets of Docker on Linux, rootless Docker and Docker Desktop, and the named pipe on Windows.
 * Anything found is handed to Testcontainers to decide (which may still log its error, then about a
 * Docker that was configured). docker-machine, retired, is not looked for.
 */
final class DockerProbe {

  private DockerProbe() {}

  static boolean dockerConfigured() {
    return dockerConfigured(
        System.getenv(),
        Path.of(System.getProperty("user.home")),
        System.getProperty("os.name", ""),
        Files::exists);
  }

  static boolean dockerConfigured(
      Map<String, String> env, Path home, String osName, Predicate<Path> exists) {
    if (osName.toLowerCase(Locale.ROOT).startsWith("windows")) {
      return true; // the named pipe, which only Testcontainers can open
    }
    for (String name : env.keySet()) {
      if (name.equals("DOCKER_HOST")
          || name.equals("DOCKER_CONTEXT")
          || name.startsWith("TESTCONTAINERS_")) {
        return true;
      }
    }
    return candidates(env, home).stream().anyMatch(exists);
  }

  /** Configuration files and sockets, any of which means a Docker may answer. */
  private static List<Path> candidates(Map<String, String> env, Path home) {
    List<Path> paths = new ArrayList<>();
    paths.add(home.resolve(".testcontainers.properties"));
    paths.add(home.resolve(".docker").resolve("contexts").resolve("meta"));
    paths.add(Path.of("/var/run/docker.sock"));
    paths.add(home.resolve(".docker").resolve("run").resolve("docker.sock"));
    paths.add(home.resolve(".docker").resolve("desktop").resolve("docker.sock"));
    String runtimeDir = env.get("XDG_RUNTIME_DIR");
    if (runtimeDir != null && !runtimeDir.isBlank()) {
      paths.add(Path.of(runtimeDir, "docker.sock"));
    }
    return paths;
  }
}
