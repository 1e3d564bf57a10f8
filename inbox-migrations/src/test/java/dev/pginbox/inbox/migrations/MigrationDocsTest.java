package dev.pginbox.inbox.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The migrations that docs/spring-boot.md shows are the ones the migration tests run. */
class MigrationDocsTest {

  @Test
  void the_documented_flyway_migration_is_the_tested_one() throws IOException {
    String docs = Files.readString(Path.of("../docs/spring-boot.md"), StandardCharsets.UTF_8);
    String tested;
    try (var in = getClass().getResourceAsStream("/db/app/R__orders_inbox.sql")) {
      tested = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String statement = tested.substring(tested.indexOf("DO $$"));

    assertThat(docs)
        .contains("-- src/main/resources/db/migration/R__orders_inbox.sql\n" + statement);
  }
}
