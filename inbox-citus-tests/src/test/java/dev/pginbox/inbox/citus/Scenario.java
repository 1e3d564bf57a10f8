package dev.pginbox.inbox.citus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One distributed inbox and the application's tables its handler writes, all co-located: {@code
 * app.<name>_accounts} (one row per aggregate, the number of its last message handled) and {@code
 * app.<name>_effects} (one row per handling). The handler moves an account on only from the number
 * before its message's, and records whether it could: a message handled out of its aggregate's
 * order, twice, or never shows in the effects.
 */
final class Scenario {

  private static final AtomicInteger COUNTER = new AtomicInteger();

  final String inbox;
  final String accounts;
  final String effects;
  private final String coordinatorUrl;
  private final int aggregates;
  private final AtomicInteger sent = new AtomicInteger();
  private final int[] perAggregate;

  private Scenario(String coordinatorUrl, String inbox, int aggregates) {
    this.coordinatorUrl = coordinatorUrl;
    this.inbox = inbox;
    this.accounts = "app." + inbox + "_accounts";
    this.effects = "app." + inbox + "_effects";
    this.aggregates = aggregates;
    this.perAggregate = new int[aggregates];
  }

  /**
   * The application's tables, distributed, and a managed inbox ordered per aggregate, not yet
   * distributed.
   */
  static Scenario prepare(CitusCluster cluster, String prefix, int aggregates) throws SQLException {
    Scenario s =
        new Scenario(cluster.coordinatorUrl(), prefix + COUNTER.incrementAndGet(), aggregates);
    CitusCluster.sql(
        s.coordinatorUrl,
        "CREATE TABLE "
            + s.accounts
            + " (aggregate_id text PRIMARY KEY, last_n integer NOT NULL DEFAULT 0)",
        "SELECT create_distributed_table('" + s.accounts + "', 'aggregate_id')",
        "CREATE TABLE "
            + s.effects
            + " (aggregate_id text NOT NULL, event_id text NOT NULL, n integer,"
            + " in_order boolean, attempt integer, remote boolean)",
        "SELECT create_distributed_table('"
            + s.effects
            + "', 'aggregate_id', colocate_with => '"
            + s.accounts
            + "')",
        "INSERT INTO "
            + s.accounts
            + " (aggregate_id) SELECT 'agg-' || g FROM generate_series(0, "
            + (aggregates - 1)
            + ") g",
        "SELECT inbox.create_inbox('"
            + s.inbox
            + "', p_backoff_base => interval '10 milliseconds',"
            + " p_backoff_max => interval '50 milliseconds', p_max_retries => 5)",
        "SELECT inbox.enable_inbox_ordering('" + s.inbox + "', 'aggregate_id', 'seq')");
    return s;
  }

  static Scenario distributed(CitusCluster cluster, String prefix, int aggregates)
      throws SQLException {
    Scenario s = prepare(cluster, prefix, aggregates);
    CitusCluster.sql(
        s.coordinatorUrl,
        "SELECT inbox.distribute_inbox('" + s.inbox + "', colocate_with => '" + s.accounts + "')");
    return s;
  }

  /**
   * Sends {@code rounds} more messages to every aggregate (one per round, numbered on), through
   * send_<name> on the coordinator. A round that fails (a node's backends terminated under it) is
   * sent again: duplicates are ignored, so it is stored once either way.
   */
  void send(int rounds) throws SQLException, InterruptedException {
    for (int r = 0; r < rounds; r++) {
      List<String> ids = new ArrayList<>();
      List<String> aggs = new ArrayList<>();
      List<String> payloads = new ArrayList<>();
      for (int a = 0; a < aggregates; a++) {
        int n = ++perAggregate[a];
        ids.add("e-" + a + "-" + n);
        aggs.add("agg-" + a);
        payloads.add("{\"n\": " + n + "}");
      }
      for (int attempt = 1; ; attempt++) {
        try (Connection c = DriverManager.getConnection(coordinatorUrl);
            PreparedStatement s =
                c.prepareStatement("SELECT inbox.send_" + inbox + "(?, NULL, NULL, ?, ?, NULL)")) {
          s.setArray(1, c.createArrayOf("text", ids.toArray()));
          s.setArray(2, c.createArrayOf("text", aggs.toArray()));
          s.setArray(3, c.createArrayOf("jsonb", payloads.toArray()));
          s.execute();
          break;
        } catch (SQLException e) {
          if (attempt >= 50) {
            throw e;
          }
          Thread.sleep(100);
        }
      }
      sent.addAndGet(ids.size());
    }
  }

  int sent() {
    return sent.get();
  }

  /**
   * Handles a message: moves its account on, records the effect. Citus reports every command it
   * sends to another node as a notice (citus.log_remote_commands): the effect records whether one
   * came, which a co-located write never causes.
   */
  MessageHandler handler() {
    return (message, tx) -> {
      Connection c = tx.unwrap(Connection.class);
      int n = Integer.parseInt(message.payload().replaceAll("[^0-9]", ""));
      try (Statement s = c.createStatement()) {
        s.execute("SELECT set_config('citus.log_remote_commands', 'on', true)");
      }
      int moved;
      boolean remote;
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE " + accounts + " SET last_n = ? WHERE aggregate_id = ? AND last_n = ?")) {
        s.setInt(1, n);
        s.setString(2, message.aggregateId());
        s.setInt(3, n - 1);
        moved = s.executeUpdate();
        remote = issuedRemotely(s.getWarnings());
      }
      try (PreparedStatement s =
          c.prepareStatement("INSERT INTO " + effects + " VALUES (?, ?, ?, ?, ?, ?)")) {
        s.setString(1, message.aggregateId());
        s.setString(2, message.eventId());
        s.setInt(3, n);
        s.setBoolean(4, moved == 1);
        s.setInt(5, message.retryCount() + 1);
        s.setBoolean(6, remote);
        s.executeUpdate();
        if (issuedRemotely(s.getWarnings())) {
          throw new IllegalStateException(
              "the effect of " + message.eventId() + " went to another node");
        }
      }
      return Outcome.processed();
    };
  }

  private static boolean issuedRemotely(SQLWarning warnings) {
    for (SQLWarning w = warnings; w != null; w = w.getNextWarning()) {
      if (w.getMessage() != null && w.getMessage().contains("issuing")) {
        return true;
      }
    }
    return false;
  }

  long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(coordinatorUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  long processedMessages() throws SQLException {
    return count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL");
  }

  /** Exactly once, in order per aggregate, nothing lost: checked on the coordinator. */
  void assertEveryMessageHandledOnceInOrder() throws SQLException {
    assertThat(processedMessages()).as("processed messages").isEqualTo(sent());
    assertThat(count("SELECT count(*) FROM " + effects)).as("effects").isEqualTo(sent());
    assertThat(
            count(
                "SELECT count(*) FROM (SELECT event_id FROM "
                    + effects
                    + " GROUP BY aggregate_id, event_id HAVING count(*) > 1) d"))
        .as("messages handled twice")
        .isZero();
    assertThat(count("SELECT count(*) FROM " + effects + " WHERE remote"))
        .as("handler writes sent to another node than the claim's")
        .isZero();
    assertThat(count("SELECT count(*) FROM " + effects + " WHERE NOT in_order"))
        .as("handled out of order")
        .isZero();
    assertThat(
            count(
                "SELECT count(*) FROM "
                    + accounts
                    + " WHERE last_n <> (SELECT max(n) FROM "
                    + effects
                    + " e WHERE e.aggregate_id = "
                    + accounts
                    + ".aggregate_id)"))
        .as("accounts behind their messages")
        .isZero();
  }
}
