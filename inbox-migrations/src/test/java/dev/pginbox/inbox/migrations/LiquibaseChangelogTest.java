package dev.pginbox.inbox.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.Test;

class LiquibaseChangelogTest {

  @SuppressWarnings("deprecation") // Liquibase's facade; the command API needs far more wiring
  private static void update(TestDatabase db) throws Exception {
    try (Connection c = db.connect()) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      new Liquibase("db/inbox/inbox.changelog.xml", new ClassLoaderResourceAccessor(), database)
          .update("");
    }
  }

  @Test
  void the_changelog_gives_the_schema_that_install_gives_and_runs_once() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("liquibase");
    DataSource installed = TestPostgres.shared().newDatabase("liquibase_installed").dataSource();

    update(db);
    update(db);
    PostgresInboxManager.create(installed).install();

    assertThat(SchemaFingerprint.of(db.dataSource()))
        .hasSizeGreaterThan(40)
        .containsExactlyElementsOf(SchemaFingerprint.of(installed));
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM databasechangelog")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
    }
  }
}
