package dev.pginbox.inbox.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.SqlScripts;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** db/inbox/inbox.changelog.xml: a changeset per step, then the definitions (runOnChange). */
class LiquibaseChangelogTest {

  private static final List<String> CHANGESETS =
      List.of(
          "inbox-step-1",
          "inbox-step-2",
          "inbox-step-3",
          "inbox-step-4",
          "inbox-step-5",
          "inbox-step-6",
          "inbox-sql-api");

  @SuppressWarnings("deprecation") // Liquibase's facade; the command API needs far more wiring
  private static void update(TestDatabase db) throws Exception {
    try (Connection c = db.connect()) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      new Liquibase("db/inbox/inbox.changelog.xml", new ClassLoaderResourceAccessor(), database)
          .update("");
    }
  }

  private static List<String> changesets(TestDatabase db) throws Exception {
    List<String> ids = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM databasechangelog ORDER BY orderexecuted")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  @Test
  void the_changelog_gives_the_schema_and_ledger_that_install_gives_and_runs_once()
      throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("liquibase");
    DataSource installed = TestPostgres.shared().newDatabase("liquibase_installed").dataSource();

    update(db);
    List<String> ledger = Ledger.stepsWithTimes(db.dataSource());
    update(db);
    PostgresInboxManager.create(installed).install();

    assertThat(SchemaFingerprint.of(db.dataSource()))
        .hasSizeGreaterThan(40)
        .containsExactlyElementsOf(SchemaFingerprint.of(installed));
    assertThat(changesets(db)).isEqualTo(CHANGESETS);
    assertThat(Ledger.steps(db.dataSource()))
        .isEqualTo(Ledger.STEPS)
        .isEqualTo(Ledger.steps(installed));
    assertThat(Ledger.stepsWithTimes(db.dataSource())).isEqualTo(ledger);
  }

  @Test
  void upgrades_a_database_installed_by_the_previous_releases_files() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("liquibase_upgrade");
    DataSource fresh = TestPostgres.shared().newDatabase("liquibase_fresh").dataSource();
    Jdbi.create(db.dataSource()).useHandle(h -> SqlScripts.install(h, "upgrade/0.1.0/install.sql"));
    PostgresInboxManager old = PostgresInboxManager.create(db.dataSource());
    old.createInbox("orders").send(NewMessage.of("evt-1", "order.placed", "ORD-1", "{}"));

    update(db);

    assertThat(old.inbox("orders").pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("evt-1");
    PostgresInboxManager.create(fresh).install();
    PostgresInboxManager.create(fresh).createInbox("orders");
    assertThat(SchemaFingerprint.of(db.dataSource()))
        .containsExactlyElementsOf(SchemaFingerprint.of(fresh));
    assertThat(Ledger.steps(db.dataSource())).isEqualTo(Ledger.STEPS);
  }

  @Test
  void liquibase_takes_over_a_database_installed_by_install_sql_without_running_a_step_again()
      throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("liquibase_after_install");
    PostgresInboxManager.create(db.dataSource()).install();
    List<String> ledger = Ledger.stepsWithTimes(db.dataSource());

    update(db);

    assertThat(Ledger.stepsWithTimes(db.dataSource())).isEqualTo(ledger);
    assertThat(changesets(db)).isEqualTo(CHANGESETS);
  }
}
