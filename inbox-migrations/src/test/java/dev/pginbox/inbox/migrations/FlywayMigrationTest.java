package dev.pginbox.inbox.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.SqlScripts;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * classpath:db/inbox: the steps as versioned migrations, the definitions as one repeatable, run by
 * a Flyway of their own (history table {@code inbox.inbox_schema_history}, docs/spring-boot.md),
 * whose versions cannot collide with the application's. Baselined at version 0, so that it takes
 * over a database installed otherwise: the steps then find themselves in the ledger and do nothing.
 */
class FlywayMigrationTest {

  private static final String PREVIOUS_RELEASE_INSTALL = "upgrade/0.1.0/install.sql";
  private static final List<String> MIGRATIONS =
      List.of(
          "inbox baseline",
          "inbox drop functions replaced since 0 1 0",
          "inbox failure history",
          "inbox dead letters by aggregate",
          "inbox heads from the order floor",
          "inbox tracked arrival column",
          "000 inbox sql api");

  private static Flyway inboxFlyway(DataSource dataSource) {
    return Flyway.configure()
        .dataSource(dataSource)
        .locations("classpath:db/inbox")
        .schemas("inbox")
        .table("inbox_schema_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load();
  }

  // docs/spring-boot.md: register it with @Bean FlywayMigrationStrategy inboxFirst() { return
  // YourMigrations::inboxFirst; }, so that Spring Boot's Flyway runs after the inbox's.
  static void inboxFirst(Flyway flyway) {
    Flyway.configure()
        .dataSource(flyway.getConfiguration().getDataSource())
        .locations("classpath:db/inbox")
        .schemas("inbox")
        .table("inbox_schema_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
    flyway.migrate(); // yours: classpath:db/migration
  }

  private static Flyway applicationFlyway(DataSource dataSource) {
    return Flyway.configure().dataSource(dataSource).locations("classpath:db/app").load();
  }

  private static List<String> applied(Flyway flyway) {
    return List.of(flyway.info().applied()).stream()
        .map(MigrationInfo::getDescription)
        .filter(description -> !description.startsWith("<<")) // Flyway's baseline row
        .toList();
  }

  @Test
  void migrating_an_empty_database_gives_the_schema_and_the_ledger_that_install_gives()
      throws Exception {
    DataSource migrated = TestPostgres.shared().newDatabase("flyway_empty").dataSource();
    DataSource installed = TestPostgres.shared().newDatabase("flyway_installed").dataSource();

    inboxFlyway(migrated).migrate();
    PostgresInboxManager.create(installed).install();

    assertThat(SchemaFingerprint.of(migrated))
        .hasSizeGreaterThan(40)
        .containsExactlyElementsOf(SchemaFingerprint.of(installed));
    assertThat(Ledger.steps(migrated)).isEqualTo(Ledger.STEPS).isEqualTo(Ledger.steps(installed));
    assertThat(applied(inboxFlyway(migrated))).isEqualTo(MIGRATIONS);
  }

  @Test
  void an_applications_repeatable_migration_creates_its_inbox_after_the_api() throws Exception {
    DataSource ds = TestPostgres.shared().newDatabase("flyway_app").dataSource();

    for (int run = 0; run < 2; run++) { // nothing changed the second time: no-op
      inboxFirst(applicationFlyway(ds));
    }

    PostgresInboxManager manager = PostgresInboxManager.create(ds);
    assertThat(manager.names()).containsExactly("orders");
    Integer maxRetries =
        Jdbi.create(ds)
            .withHandle(
                h ->
                    h.createQuery(
                            "SELECT max_retries FROM inbox.inbox_config WHERE inbox_name = 'orders'")
                        .mapTo(Integer.class)
                        .one());
    assertThat(maxRetries).isEqualTo(5);
    assertThat(applied(inboxFlyway(ds))).isEqualTo(MIGRATIONS);
    assertThat(applied(applicationFlyway(ds))).containsExactly("orders inbox");
  }

  @Test
  void upgrades_a_database_installed_by_the_previous_releases_files() throws Exception {
    DataSource ds = TestPostgres.shared().newDatabase("flyway_upgrade").dataSource();
    DataSource fresh = TestPostgres.shared().newDatabase("flyway_fresh").dataSource();
    Jdbi.create(ds).useHandle(h -> SqlScripts.install(h, PREVIOUS_RELEASE_INSTALL));
    PostgresInboxManager old = PostgresInboxManager.create(ds);
    old.createInbox("orders").send(NewMessage.of("evt-1", "order.placed", "ORD-1", "{}"));

    inboxFlyway(ds).migrate();

    // The upgrade regenerates the existing inbox's objects; the message is still there.
    List<InboxMessage> pending = old.inbox("orders").pending(10);
    assertThat(pending).extracting(InboxMessage::eventId).containsExactly("evt-1");
    PostgresInboxManager.create(fresh).install();
    PostgresInboxManager.create(fresh).createInbox("orders");
    assertThat(SchemaFingerprint.of(ds)).containsExactlyElementsOf(SchemaFingerprint.of(fresh));
    assertThat(Ledger.steps(ds)).isEqualTo(Ledger.STEPS);
  }

  @Test
  void flyway_takes_over_a_database_installed_by_install_sql_without_running_a_step_again()
      throws Exception {
    DataSource ds = TestPostgres.shared().newDatabase("flyway_after_install").dataSource();
    PostgresInboxManager manager = PostgresInboxManager.create(ds);
    manager.install();
    manager.createInbox("orders").send(NewMessage.of("evt-1", "order.placed", "ORD-1", "{}"));
    List<String> ledger = Ledger.stepsWithTimes(ds);

    inboxFlyway(ds).migrate();
    manager.install(); // and back: the ledger decides, whoever runs the files

    assertThat(Ledger.stepsWithTimes(ds)).isEqualTo(ledger);
    assertThat(applied(inboxFlyway(ds))).isEqualTo(MIGRATIONS);
    assertThat(manager.inbox("orders").pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("evt-1");
  }
}
