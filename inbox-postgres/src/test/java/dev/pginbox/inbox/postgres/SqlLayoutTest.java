package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rules of sql/README.md that a file listing can check, without a database: install.sql names
 * the ledger, every step in order, every definition, and the per-inbox rebuild last; steps are
 * numbered without gaps and each opens with the guard of its own number and name; the newer-version
 * check knows the highest step.
 */
class SqlLayoutTest {

  private static final Path SQL = Path.of("..", "sql", "inbox").toAbsolutePath().normalize();
  private static final Pattern STEP_FILE = Pattern.compile("(\\d{4})_([a-z0-9_]+)\\.sql");

  private static List<String> installed() throws IOException {
    return SqlScripts.includedFiles(Files.readString(SQL.resolve("install.sql")));
  }

  private static List<String> filesUnder(String dir) throws IOException {
    try (Stream<Path> files = Files.list(SQL.resolve(dir))) {
      return files.map(f -> dir + "/" + f.getFileName()).sorted().toList();
    }
  }

  @Test
  void install_sql_runs_the_ledger_then_every_step_then_every_definition_then_the_rebuild()
      throws IOException {
    List<String> steps = filesUnder("steps");
    List<String> definitions =
        installed().stream().filter(f -> f.startsWith("definitions/")).toList();
    List<String> expected = new ArrayList<>(List.of("install_lock.sql", "ledger.sql"));
    expected.addAll(steps);
    expected.addAll(definitions);
    expected.add("rebuild_inboxes.sql");

    assertThat(installed()).isEqualTo(expected);
    assertThat(definitions).containsExactlyInAnyOrderElementsOf(filesUnder("definitions"));
  }

  @Test
  void steps_are_numbered_from_one_without_gaps_and_guard_themselves() throws IOException {
    List<String> steps = filesUnder("steps");
    assertThat(steps).isNotEmpty();
    for (int i = 0; i < steps.size(); i++) {
      String file = steps.get(i).substring("steps/".length());
      Matcher m = STEP_FILE.matcher(file);
      assertThat(m.matches()).as(file + " is NNNN_name.sql").isTrue();
      int number = Integer.parseInt(m.group(1));
      assertThat(number).as(file).isEqualTo(i + 1);
      assertThat(Files.readString(SQL.resolve(steps.get(i))))
          .as(file + " opens with its guard")
          .contains("IF NOT inbox.begin_step(" + number + ", '" + m.group(2) + "') THEN");
    }
  }

  @Test
  void the_newer_version_check_knows_the_highest_step() throws IOException {
    int highest = filesUnder("steps").size();
    assertThat(Files.readString(SQL.resolve("definitions/catalog_functions.sql")))
        .contains("IF v_installed > " + highest + " THEN")
        .contains("newer than these files (" + highest + ")");
  }
}
