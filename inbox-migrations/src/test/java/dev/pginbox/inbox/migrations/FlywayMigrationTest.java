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

class FlywayMigrationTest {

  private static final String PREVIOUS_RELEASE_INSTALL = "upgrade/0.1.0/install.sql";

  private static Flyway flyway(DataSource dataSource, String... locations) {
    return Flyway.configure().dataSource(dataSource).locations(locations).load();
  }

  @Test
  void migrating_an_empty_database_gives_the_schema_that_install_gives() throws Exception {
    DataSource migrated = TestPostgres.shared().newDatabase("flyway_empty").dataSource();
    DataSource installed = TestPostgres.shared().newDatabase("flyway_installed").dataSource();

    flyway(migrated, "classpath:db/inbox").migrate();
    PostgresInboxManager.create(installed).install();

    assertThat(SchemaFingerprint.of(migrated))
        .hasSizeGreaterThan(40)
        .containsExactlyElementsOf(SchemaFingerprint.of(installed));
  }

  @Test
  void an_applications_repeatable_migration_creates_its_inbox_after_the_api() throws Exception {
    DataSource ds = TestPostgres.shared().newDatabase("flyway_app").dataSource();

    flyway(ds, "classpath:db/inbox", "classpath:db/app").migrate();
    flyway(ds, "classpath:db/inbox", "classpath:db/app").migrate(); // nothing changed: no-op

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
    assertThat(flyway(ds, "classpath:db/inbox", "classpath:db/app").info().applied())
        .extracting(MigrationInfo::getDescription)
        .containsExactly("000 inbox sql api", "orders inbox");
  }

  @Test
  void upgrades_a_database_installed_by_the_previous_releases_files() throws Exception {
    DataSource ds = TestPostgres.shared().newDatabase("flyway_upgrade").dataSource();
    DataSource fresh = TestPostgres.shared().newDatabase("flyway_fresh").dataSource();
    Jdbi.create(ds).useHandle(h -> SqlScripts.install(h, PREVIOUS_RELEASE_INSTALL));
    PostgresInboxManager old = PostgresInboxManager.create(ds);
    old.createInbox("orders").send(NewMessage.of("evt-1", "order.placed", "ORD-1", "{}"));

    flyway(ds, "classpath:db/inbox").migrate();

    // The upgrade regenerates the existing inbox's objects; the message is still there.
    List<InboxMessage> pending = old.inbox("orders").pending(10);
    assertThat(pending).extracting(InboxMessage::eventId).containsExactly("evt-1");
    PostgresInboxManager.create(fresh).install();
    PostgresInboxManager.create(fresh).createInbox("orders");
    assertThat(SchemaFingerprint.of(ds)).containsExactlyElementsOf(SchemaFingerprint.of(fresh));
  }
}
