package dev.pginbox.inbox.postgres.internal.worker.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class SqlStatesTest {

  @Test
  void a_log_line_carries_the_servers_message_and_state_never_the_statement() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("sql_states");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      // An error inside a function: the server's context quotes the statement that failed.
      SQLException e =
          catchThrowableOfType(
              SQLException.class,
              () ->
                  s.execute(
                      "DO $$ BEGIN EXECUTE 'UPDATE pg_catalog.pg_class SET relname = relname"
                          + " WHERE 1 / 0 = 1'; END $$"));
      assertThat(e.getMessage()).contains("UPDATE pg_catalog.pg_class");
      assertThat(SqlStates.describe(e))
          .isEqualTo("division by zero (SQLSTATE 22012)")
          .doesNotContain("UPDATE");
    }
  }

  @Test
  void read_only_and_recovery_refusals_mean_a_standby() throws Exception {
    TestDatabase db = TestPostgres.shared().newDatabase("sql_states_ro");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("SET default_transaction_read_only = on");
      SQLException e =
          catchThrowableOfType(SQLException.class, () -> s.execute("CREATE TABLE nope (id int)"));
      assertThat(SqlStates.isStandby(e)).isTrue();
    }
    assertThat(
            SqlStates.isStandby(
                new SQLException("cannot assign TransactionIds during recovery", "XX000")))
        .isTrue();
    assertThat(SqlStates.isStandby(new SQLException("connection refused", "08001"))).isFalse();
    assertThat(SqlStates.isStandby(new SQLException("duplicate key", "23505"))).isFalse();
  }
}
