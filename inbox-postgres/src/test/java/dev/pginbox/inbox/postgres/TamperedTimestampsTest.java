package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.pginbox.inbox.TrackingSpec;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.InboxHealth;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whatever a writer put into received_at or next_attempt_at ('-infinity', 'infinity', a time in the
 * future), or a worker into its announced details, health, status and the gauges answer, and a
 * waiting message stays visible.
 */
class TamperedTimestampsTest extends InboxTestSupport {

  private static final AtomicInteger COUNTER = new AtomicInteger();

  private static PostgresInbox managed() {
    return manager.createInbox("tamper_" + COUNTER.incrementAndGet());
  }

  private static PostgresInbox tracked() {
    String name = "tamper_tracked_" + COUNTER.incrementAndGet();
    sql(
        "CREATE TABLE public."
            + name
            + " (event_id text PRIMARY KEY, event_type text, processed_at timestamptz,"
            + " received_at timestamptz NOT NULL DEFAULT now(), aggregate_id text,"
            + " retry_count int, error text)");
    return manager.enableTracking(TrackingSpec.builder(name, "public." + name).build());
  }

  private static String table(PostgresInbox inbox) {
    return strings(
            "SELECT format('%I.%I', table_schema, table_name) FROM inbox.inbox_config"
                + " WHERE inbox_name = ?",
            inbox.name())
        .get(0);
  }

  /** Plain SQL: a tracked table is written by its application, not through send. */
  private static void put(PostgresInbox inbox, String eventId, String aggregateId) {
    sql(
        "INSERT INTO " + table(inbox) + " (event_id, event_type, aggregate_id) VALUES (?, 't', ?)",
        eventId,
        aggregateId);
  }

  private static void everyMonitoringCallAnswers(PostgresInbox inbox) {
    inbox.health();
    inbox.status();
    strings("SELECT inbox.inbox_health(?)::text", inbox.name());
    strings("SELECT inbox.inbox_status(?)::text", inbox.name());
    strings("SELECT (inbox.pending_gauges(?)).oldest_age_seconds::text", inbox.name());
    strings("SELECT event_id FROM inbox.inbox_messages(?, 'pending')", inbox.name());
  }

  @ParameterizedTest
  @ValueSource(strings = {"-infinity", "infinity", "now() + interval '1 day'", "'1900-01-01'"})
  void health_status_and_gauges_answer_whatever_received_at_holds(String receivedAt) {
    for (PostgresInbox inbox : new PostgresInbox[] {managed(), tracked()}) {
      put(inbox, "m1", "a");
      sql("UPDATE " + table(inbox) + " SET received_at = " + quoted(receivedAt));
      everyMonitoringCallAnswers(inbox);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"-infinity", "infinity"})
  void health_status_and_gauges_answer_whatever_next_attempt_at_holds(String nextAttemptAt) {
    PostgresInbox inbox = managed();
    put(inbox, "m1", "a");
    sql("UPDATE " + table(inbox) + " SET next_attempt_at = '" + nextAttemptAt + "'");
    everyMonitoringCallAnswers(inbox);
  }

  private static String quoted(String value) {
    return value.contains("now()") || value.startsWith("'") ? value : "'" + value + "'";
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"x\"",
        "1000000000",
        "-1",
        "2.5",
        "1e400",
        "null",
        "[1]",
      })
  void health_partition_lag_and_workers_answer_whatever_a_worker_announced(String value) {
    PostgresInbox inbox = managed();
    put(inbox, "m1", "a");
    // As a worker's role may write it (directly or through inbox.worker_announce): the operator
    // views parse partitions, partition, pid and interval_seconds out of it.
    sql(
        "INSERT INTO inbox.inbox_worker_registry (inbox_name, worker_id, details) VALUES (?, 'w',"
            + " jsonb_build_object('assignment', 'static', 'partitions', ?::jsonb, 'partition', ?::jsonb,"
            + " 'pid', ?::jsonb, 'interval_seconds', ?::jsonb))",
        inbox.name(),
        value,
        value,
        value,
        value);
    // Bounded: a billion announced partitions used to map every bucket over all of them.
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          everyMonitoringCallAnswers(inbox);
          strings("SELECT count(*)::text FROM inbox.inbox_partition_lag(?)", inbox.name());
          assertThat(strings("SELECT worker_id FROM inbox.inbox_workers(?)", inbox.name()))
              .containsExactly("w");
        });
  }

  @Test
  void a_message_received_at_minus_infinity_makes_the_inbox_critical() {
    PostgresInbox inbox = managed();
    put(inbox, "m1", "a");
    sql("UPDATE " + table(inbox) + " SET received_at = '-infinity'");

    InboxHealth health = inbox.health();
    assertThat(health.status()).isEqualTo(HealthStatus.CRITICAL);
    assertThat(health.oldestPendingAgeSeconds()).isGreaterThan(50L * 365 * 24 * 3600);
  }

  @Test
  void a_future_received_at_at_the_head_does_not_hide_a_message_waiting_for_an_hour() {
    for (PostgresInbox inbox : new PostgresInbox[] {managed(), tracked()}) {
      put(inbox, "first", "a");
      put(inbox, "second", "b");
      sql(
          "UPDATE "
              + table(inbox)
              + " SET received_at = CASE event_id WHEN 'first' THEN now() + interval '1 day'"
              + " ELSE now() - interval '1 hour' END");

      InboxHealth health = inbox.health();
      assertThat(health.oldestPendingAgeSeconds()).as(inbox.name()).isGreaterThanOrEqualTo(3600);
      assertThat(health.status()).as(inbox.name()).isEqualTo(HealthStatus.CRITICAL);
      assertThat(inbox.status().oldestPendingAgeSeconds()).isGreaterThanOrEqualTo(3600);
      assertThat(
              strings(
                  "SELECT inbox.inbox_status(?) -> 'oldest_pending' ->> 'event_id'", inbox.name()))
          .containsExactly("second");
      assertThat(count("SELECT (inbox.pending_gauges(?)).oldest_age_seconds::bigint", inbox.name()))
          .isGreaterThanOrEqualTo(3600);
    }
  }

  @Test
  void a_message_that_is_never_due_shows_in_status_and_in_the_ordering_report() {
    PostgresInbox inbox = managed();
    manager.enableOrdering(inbox.name());
    put(inbox, "a1", "A");
    put(inbox, "a2", "A");
    put(inbox, "b1", "B");
    sql("UPDATE " + table(inbox) + " SET next_attempt_at = 'infinity' WHERE event_id = 'a1'");

    assertThat(strings("SELECT inbox.inbox_status(?) -> 'counts' ->> 'never_due'", inbox.name()))
        .containsExactly("1");
    assertThat(
            strings(
                "SELECT aggregate_id || ' ' || issue || ' ' || event_id"
                    + " FROM inbox.inbox_ordering_gaps(?)",
                inbox.name()))
        .containsExactly("A blocked_by_never_due a1");
  }
}
