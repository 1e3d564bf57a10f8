package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.postgres.LoginRoles.Login;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The recommended set-up of docs/operations.md: a separate owner role that is neither superuser nor
 * CREATEROLE installs the SQL API and creates inboxes; the group roles then work.
 */
class OwnerInstallTest {

  @Test
  void an_owner_without_superuser_or_createrole_installs_and_the_group_roles_work()
      throws Exception {
    TestDatabase database = TestPostgres.shared().newDatabase("owner_install");
    String owner = "owner_" + database.name();
    Jdbi admin = Jdbi.create(database.dataSource());
    admin.useHandle(
        h -> {
          h.execute("CREATE ROLE \"" + owner + "\" NOLOGIN");
          // Step 1 of the set-up: the group roles exist before the owner installs. (Roles belong
          // to the cluster: another test's install may have created them already.)
          for (String group :
              new String[] {"inbox_producer", "inbox_consumer", "inbox_operator", "inbox_reader"}) {
            h.execute(
                "DO $$ BEGIN IF to_regrole('"
                    + group
                    + "') IS NULL THEN CREATE ROLE "
                    + group
                    + " NOLOGIN; END IF; "
                    + "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$");
          }
          h.execute("GRANT CREATE ON DATABASE \"" + database.name() + "\" TO \"" + owner + "\"");
        });
    try (Handle h = admin.open()) {
      h.execute("SET ROLE \"" + owner + "\"");
      SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT);
      h.execute("SELECT inbox.create_inbox('orders')");
      SqlScripts.install(h, SqlScripts.INBOX_INSTALL_SCRIPT);
      assertThat(
              h.select(
                      "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'inbox.orders'::regclass")
                  .mapTo(String.class)
                  .one())
          .isEqualTo(owner);
    }
    LoginRoles roles = new LoginRoles(database);
    Login producer = roles.create("p", "inbox_producer");
    Login consumer = roles.create("c", "inbox_consumer");
    Login reader = roles.create("r", "inbox_reader");
    producer.execute(
        "INSERT INTO inbox.orders (event_id, payload) VALUES ('e-1', '{}') ON CONFLICT (event_id) DO NOTHING");
    assertThat(consumer.count("SELECT count(*) FROM inbox.claim_orders(10)")).isEqualTo(1);
    assertThat(reader.count("SELECT count(*) FROM inbox.orders_stats")).isEqualTo(1);
  }
}
