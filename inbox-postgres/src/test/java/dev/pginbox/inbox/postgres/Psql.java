package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs psql against a test database, for the tests of the scripts an operator runs by hand. */
final class Psql {

  record Result(int exitCode, String output) {}

  private Psql() {}

  /** sql/inbox/install.sql of this checkout (the module's directory is the working directory). */
  static Path inboxInstallScript() {
    return Path.of("..", "sql", "inbox", "install.sql").toAbsolutePath().normalize();
  }

  static boolean available() {
    String path = System.getenv("PATH");
    return path != null
        && Arrays.stream(path.split(java.io.File.pathSeparator))
            .anyMatch(dir -> Files.isExecutable(Path.of(dir, "psql")));
  }

  static Result run(TestDatabase db, String... args) throws Exception {
    // jdbc:postgresql://host:port/db?params -> a libpq URI; the password travels in the
    // environment.
    String uri = "postgresql://" + db.jdbcUrl().substring("jdbc:postgresql://".length());
    if (db.user() != null && !uri.contains("user=")) {
      uri += (uri.contains("?") ? "&" : "?") + "user=" + db.user();
    }
    List<String> command = new ArrayList<>(List.of("psql", "-X", "-d", uri));
    command.addAll(Arrays.asList(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    if (db.password() != null) {
      pb.environment().put("PGPASSWORD", db.password());
    }
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), output);
  }
}
