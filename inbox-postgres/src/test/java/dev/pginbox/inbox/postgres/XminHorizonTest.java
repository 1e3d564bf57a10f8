package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.InboxHealth;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * A transaction that holds the database's xmin horizon back keeps vacuum from removing claimed
 * messages, and claims slow down while it lasts: inbox_health names the holder and turns degraded,
 * then critical, past the horizon thresholds; the Java health carries the same.
 */
class XminHorizonTest extends InboxTestSupport {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static int pid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static JsonNode health(Handle h, String inbox) throws Exception {
    return JSON.readTree(
        h.select("SELECT inbox.inbox_health(?)::text", inbox).mapTo(String.class).one());
  }

  @Test
  void a_held_horizon_is_named_and_degrades_then_criticals_the_inbox_until_it_ends()
      throws Exception {
    manager.createInbox("hz").send(NewMessage.of("hz-1", "t", "a", null));
    try (Handle h = jdbi.open()) {
      JsonNode clean = health(h, "hz");
      assertThat(clean.path("status").asText()).isEqualTo("healthy");
      assertThat(clean.path("status_reasons").size()).isZero();
      assertThat(clean.path("xmin_horizon").path("check").asText()).isEqualTo("ok");
      assertThat(clean.path("xmin_horizon").path("visible").asBoolean()).isTrue();

      h.execute("SET inbox.horizon_degraded_seconds = 1");
      h.execute("SET inbox.horizon_critical_seconds = 3");
      try (Connection holder = holdHorizon("nightly-report")) {
        int holderPid = pid(holder);
        assertThat(
                h.select("SELECT pid FROM inbox.xmin_horizon(100) WHERE kind = 'transaction'")
                    .mapTo(Integer.class)
                    .list())
            .contains(holderPid);

        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> health(h, "hz").path("status").asText().equals("degraded"));
        JsonNode degraded = health(h, "hz");
        assertThat(degraded.path("status_reasons").toString()).contains("xmin_horizon: degraded");
        JsonNode top = degraded.path("xmin_horizon").path("holder");
        assertThat(top.path("pid").asInt()).isEqualTo(holderPid);
        assertThat(top.path("kind").asText()).isEqualTo("transaction");
        assertThat(top.path("application_name").asText()).isEqualTo("nightly-report");
        assertThat(top.path("held_seconds").asLong()).isGreaterThanOrEqualTo(1);

        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> health(h, "hz").path("status").asText().equals("critical"));
        assertThat(health(h, "hz").path("status_reasons").toString())
            .contains("xmin_horizon: critical");
        // inbox_status carries the same.
        JsonNode status =
            JSON.readTree(
                h.select("SELECT inbox.inbox_status('hz')::text").mapTo(String.class).one());
        assertThat(status.path("status").asText()).isEqualTo("critical");
        assertThat(status.path("xmin_horizon").path("holder").path("pid").asInt())
            .isEqualTo(holderPid);
        holder.commit();
      }
      JsonNode released = health(h, "hz");
      assertThat(released.path("status").asText()).isEqualTo("healthy");
      assertThat(released.path("xmin_horizon").path("held_seconds").asLong()).isZero();
    }
  }

  @Test
  void the_java_health_names_the_holder_and_the_checks_that_decided() throws Exception {
    manager.createInbox("hz_java");
    sql("ALTER DATABASE " + database.name() + " SET inbox.horizon_degraded_seconds = 1");
    try {
      // The test database's data source opens a new session per call: each sees the setting.
      try (Connection holder = holdHorizon("long-export")) {
        int holderPid = pid(holder);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> manager.inbox("hz_java").health().status() == HealthStatus.DEGRADED);
        InboxHealth health = manager.inbox("hz_java").health();
        assertThat(health.statusReasons()).containsExactly("xmin_horizon: degraded");
        assertThat(health.horizonHeldSeconds()).isGreaterThanOrEqualTo(1);
        assertThat(health.horizonHolder().pid()).isEqualTo(holderPid);
        assertThat(health.horizonHolder().heldSince()).isNotNull();
        assertThat(health.horizonHolder().summary())
            .startsWith("transaction pid " + holderPid + " (long-export, ")
            .contains(" for ");
        holder.rollback();
      }
      assertThat(manager.inbox("hz_java").health().status()).isEqualTo(HealthStatus.HEALTHY);
    } finally {
      sql("ALTER DATABASE " + database.name() + " RESET inbox.horizon_degraded_seconds");
    }
  }

  @Test
  void roles_without_the_grant_see_no_sessions_and_health_still_answers() throws Exception {
    manager.createInbox("hz_roles");
    LoginRoles roles = new LoginRoles(database);
    LoginRoles.Login producer = roles.create("hz_producer", "inbox_producer");
    LoginRoles.Login reader = roles.create("hz_reader", "inbox_reader");
    producer.isRefused("SELECT * FROM inbox.xmin_horizon()");
    try (Connection holder = holdHorizon("held-by-superuser")) {
      int holderPid = pid(holder);
      // A reader sees another role's session through the function (pg_stat_activity alone would
      // hide its snapshot from it).
      assertThat(
              reader.count("SELECT count(*) FROM inbox.xmin_horizon(100) WHERE pid = " + holderPid))
          .isEqualTo(1);
      // A role that may not see holders still gets its health, with the horizon not visible.
      try (Connection c = producer.dataSource().getConnection();
          Statement s = c.createStatement()) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT inbox.horizon_health()->>'visible', inbox.horizon_health()->>'check'")) {
          rs.next();
          assertThat(rs.getString(1)).isEqualTo("false");
          assertThat(rs.getString(2)).isEqualTo("ok");
        }
      }
      holder.rollback();
    }
  }

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        return s.getSQLState();
      }
    }
    return null;
  }

  @Test
  void a_threshold_that_is_not_a_number_of_seconds_is_a_clear_error() {
    manager.createInbox("hz_bad");
    for (String bad : new String[] {"ten", "0", "-5", "1.5", "99999999999"}) {
      assertThatThrownBy(
              () ->
                  jdbi.useHandle(
                      h -> {
                        h.execute("SET inbox.horizon_critical_seconds = '" + bad + "'");
                        h.select("SELECT inbox.inbox_health('hz_bad')").mapTo(String.class).one();
                      }))
          .hasMessageContaining("inbox.horizon_critical_seconds must be a whole number of seconds")
          .satisfies(e -> assertThat(sqlState(e)).isEqualTo("22023"));
    }
    assertThatThrownBy(() -> sql("SELECT * FROM inbox.xmin_horizon(0)"))
        .hasMessageContaining("limit must be between 1 and 100");
  }
}
