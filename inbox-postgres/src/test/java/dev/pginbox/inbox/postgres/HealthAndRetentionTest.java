package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.InboxHealth;
import dev.pginbox.inbox.operations.InboxStatus;
import dev.pginbox.inbox.operations.PurgeResult;
import dev.pginbox.inbox.operations.VacuumState;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HealthAndRetentionTest extends InboxTestSupport {

  private static final InboxOptions THRESHOLDS =
      InboxOptions.builder().maxRetries(2).degradedAt(30, 5).criticalAt(120, 10).build();

  private static PostgresInbox inboxWith(String name, int pending) {
    PostgresInbox inbox = manager.createInbox(name, THRESHOLDS);
    inbox.sendAll(
        IntStream.range(0, pending)
            .mapToObj(i -> NewMessage.of(name + i, "t", "a" + i, null))
            .toList());
    return inbox;
  }

  @Test
  void status_follows_counts_thresholds() {
    assertThat(inboxWith("h_empty", 0).health().status()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(inboxWith("h_five", 5).health().status())
        .isEqualTo(HealthStatus.HEALTHY); // > 5 degrades
    assertThat(inboxWith("h_six", 6).health().status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(inboxWith("h_ten", 10).health().status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(inboxWith("h_eleven", 11).health().status()).isEqualTo(HealthStatus.CRITICAL);
  }

  private static String healthCounts(String inbox) {
    return strings(
            "SELECT concat_ws(' ', h->>'pending_count', h->>'pending_count_exact', h->>'dlq_count', "
                + "h->>'dlq_count_exact', h->>'status') FROM inbox.inbox_health(?) h",
            inbox)
        .get(0);
  }

  @Test
  void counts_are_exact_up_to_the_thresholds_and_flagged_as_estimates_beyond() {
    // degraded above 5, critical above 10 pending.
    inboxWith("h_exact", 10);
    assertThat(healthCounts("h_exact")).isEqualTo("10 true 0 true degraded");

    // Eleven: counting stops at the critical threshold + 1, so the count is a lower bound
    // (at least 11: the planner's estimate if higher) and the status is still exact.
    inboxWith("h_capped", 11);
    sql("ANALYZE inbox.h_capped");
    assertThat(healthCounts("h_capped")).isEqualTo("11 false 0 true critical");

    // Far above the critical threshold by the statistics: the estimate is reported, no count.
    inboxWith("h_estimated", 40);
    sql("ANALYZE inbox.h_estimated");
    assertThat(healthCounts("h_estimated")).isEqualTo("40 false 0 true critical");
  }

  @Test
  void the_java_health_says_which_counts_are_estimates() {
    InboxHealth exact = inboxWith("h_java_exact", 10).health();
    assertThat(exact.pendingCount()).isEqualTo(10);
    assertThat(exact.pendingCountExact()).isTrue();
    assertThat(exact.dlqCountExact()).isTrue();
    assertThat(exact.blockedAggregatesExact()).isTrue();

    // Counting stops at the critical threshold + 1: the count is flagged, not passed off as exact.
    PostgresInbox capped = inboxWith("h_java_capped", 11);
    assertThat(capped.health().pendingCountExact()).isFalse();
    assertThat(capped.health().pendingCount()).isGreaterThanOrEqualTo(11);

    // Far above it by the statistics: the planner's estimate, flagged the same way.
    PostgresInbox estimated = inboxWith("h_java_estimated", 40);
    sql("ANALYZE inbox.h_java_estimated");
    InboxHealth health = estimated.health();
    assertThat(health.pendingCountExact()).isFalse();
    assertThat(health.status()).isEqualTo(HealthStatus.CRITICAL);
    assertThat(health.dlqCountExact()).isTrue();

    // Back under the threshold the count is exact again.
    IntStream.range(0, 35).forEach(i -> estimated.markProcessed("h_java_estimated" + i));
    assertThat(estimated.health().pendingCount()).isEqualTo(5);
    assertThat(estimated.health().pendingCountExact()).isTrue();
  }

  @Test
  void the_java_health_flags_an_estimated_dead_letter_count() {
    // Dead letters are counted up to max(degraded_dlq, 10,000): one more is an estimate.
    PostgresInbox inbox = manager.createInbox("h_java_dlq", THRESHOLDS);
    sql(
        "INSERT INTO inbox.h_java_dlq (event_id, event_type, retry_count) "
            + "SELECT 'd' || i, 't', 2 FROM generate_series(1, 10001) i");
    InboxHealth health = inbox.health();
    assertThat(health.dlqCountExact()).isFalse();
    assertThat(health.dlqCount()).isGreaterThanOrEqualTo(10_001);
    sql("DELETE FROM inbox.h_java_dlq WHERE event_id = 'd1'");
    assertThat(inbox.health().dlqCount()).isEqualTo(10_000);
    assertThat(inbox.health().dlqCountExact()).isTrue();
  }

  @Test
  void status_follows_the_age_of_the_oldest_pending_message() {
    PostgresInbox inbox = inboxWith("h_age", 1);
    sql("UPDATE inbox.h_age SET received_at = now() - interval '20 seconds'");
    assertThat(inbox.health().status()).isEqualTo(HealthStatus.HEALTHY);
    sql("UPDATE inbox.h_age SET received_at = now() - interval '31 seconds'");
    InboxHealth degraded = inbox.health();
    assertThat(degraded.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(degraded.oldestPendingAgeSeconds()).isBetween(31L, 40L);
    sql("UPDATE inbox.h_age SET received_at = now() - interval '121 seconds'");
    assertThat(inbox.health().status()).isEqualTo(HealthStatus.CRITICAL);
    // a processed old message does not count
    inbox.markProcessed("h_age0");
    assertThat(inbox.health())
        .isEqualTo(
            new InboxHealth("h_age", 0, 0, 0, 1, HealthStatus.HEALTHY, 0, 0, 0, true, true, true));
  }

  @Test
  void a_dead_letter_degrades_and_counts_and_throughput_are_reported() {
    PostgresInbox inbox = inboxWith("h_dead", 4);
    inbox.markProcessed("h_dead0");
    inbox.markProcessed("h_dead1");
    inbox.markFailed("h_dead2", "e1");
    inbox.markFailed("h_dead2", "e2");
    InboxHealth health = inbox.health();
    assertThat(health.pendingCount()).isEqualTo(1);
    assertThat(health.dlqCount()).isEqualTo(1);
    assertThat(health.throughputPerMinute()).isEqualTo(2);
    assertThat(health.status()).isEqualTo(HealthStatus.DEGRADED);

    InboxStatus status = inbox.status();
    assertThat(status.status()).isEqualTo(HealthStatus.DEGRADED);
    assertThat(status.pendingCount()).isEqualTo(1);
    assertThat(status.dlqCount()).isEqualTo(1);
    assertThat(status.processedLastMinute()).isEqualTo(2);
    assertThat(status.processedLastHour()).isEqualTo(2);
  }

  @Test
  void status_reports_configuration_errors_and_retry_distribution() throws Exception {
    PostgresInbox inbox = inboxWith("h_status", 5);
    inbox.markFailed("h_status0", "timeout");
    inbox.markFailed("h_status1", "timeout");
    inbox.markFailed("h_status2", "refused");
    inbox.markFailed("h_status2", "refused");
    manager.enableOrdering("h_status");
    JsonNode json = new ObjectMapper().readTree(inbox.status().json());
    assertThat(json.at("/configuration/max_retries").asInt()).isEqualTo(2);
    assertThat(json.at("/configuration/degraded_pending").asLong()).isEqualTo(5);
    assertThat(json.at("/ordering/sequence_column").asText()).isEqualTo("seq");
    assertThat(json.get("priority").isNull()).isTrue();
    // counted per message (its last error), most frequent first
    assertThat(json.at("/errors/0/error").asText()).isEqualTo("timeout");
    assertThat(json.at("/errors/0/count").asInt()).isEqualTo(2);
    assertThat(json.at("/errors/1/error").asText()).isEqualTo("refused");
    assertThat(json.at("/errors/1/count").asInt()).isEqualTo(1);
    assertThat(json.at("/retry_distribution/0").asInt()).isEqualTo(2);
    assertThat(json.at("/retry_distribution/1").asInt()).isEqualTo(2);
    assertThat(json.at("/retry_distribution/2").asInt()).isEqualTo(1);
    assertThat(json.at("/counts/retrying").asInt()).isEqualTo(2);
    assertThat(json.at("/oldest_pending/event_id").isTextual()).isTrue();
  }

  /**
   * A claimed message's index entries stay in front of every claim until vacuum removes them: the
   * operators see how many rows vacuum still owes the table, when it last came and what decides
   * when it comes next. (The server's statistics arrive within a second or so: the test waits.)
   */
  @Test
  void operators_see_what_vacuum_still_owes_the_table_and_when_it_last_came() throws Exception {
    PostgresInbox inbox = inboxWith("h_vacuum", 30);
    assertThat(count("SELECT count(*) FROM inbox.claim_h_vacuum(30)")).isEqualTo(30);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> inbox.operations().vacuum().deadRows() >= 30);
    VacuumState owed = inbox.operations().vacuum();
    assertThat(owed.liveRows()).isPositive();
    assertThat(owed.autovacuumCostDelayMs()).isZero();
    assertThat(owed.autovacuumNaptimeSeconds())
        .isEqualTo(
            count(
                "SELECT extract(epoch FROM current_setting('autovacuum_naptime')::interval)::bigint"));
    assertThat(owed.autovacuum()).isEqualTo(strings("SHOW autovacuum").get(0).equals("on"));
    JsonNode status = new ObjectMapper().readTree(inbox.status().json()).get("vacuum");
    assertThat(status.get("dead_rows").asLong()).isGreaterThanOrEqualTo(30);
    assertThat(status.get("autovacuum_naptime_seconds").asLong())
        .isEqualTo(owed.autovacuumNaptimeSeconds());

    sql("VACUUM inbox.h_vacuum");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                inbox.operations().vacuum().deadRows() == 0
                    && inbox.operations().vacuum().lastVacuum() != null);

    sql("ALTER TABLE inbox.h_vacuum SET (autovacuum_vacuum_cost_delay = 7.5)");
    assertThat(inbox.operations().vacuum().autovacuumCostDelayMs()).isEqualTo(7.5);
  }

  @Test
  void purge_deletes_old_processed_and_old_dead_letters_in_bounded_batches() {
    PostgresInbox inbox =
        manager.createInbox(
            "purged",
            InboxOptions.builder()
                .maxRetries(1)
                .processedRetention(Duration.ofHours(1))
                .dlqRetention(Duration.ofHours(2))
                .build());
    inbox.sendAll(
        IntStream.range(0, 10).mapToObj(i -> NewMessage.of("m" + i, "t", "a", null)).toList());
    sql(
        "UPDATE inbox.purged SET processed_at = now() - interval '61 minutes' WHERE event_id IN ('m0','m1','m2','m3','m4')");
    sql(
        "UPDATE inbox.purged SET processed_at = now() - interval '59 minutes' WHERE event_id = 'm5'");
    sql(
        "UPDATE inbox.purged SET retry_count = 1, received_at = now() - interval '3 hours' WHERE event_id IN ('m6','m7')");
    sql("UPDATE inbox.purged SET retry_count = 1 WHERE event_id = 'm8'"); // young dead letter

    assertThat(inbox.operations().purge(3)).isEqualTo(new PurgeResult(3, 0, 0, true));
    assertThat(inbox.operations().purge(3)).isEqualTo(new PurgeResult(2, 0, 1, true));
    assertThat(inbox.operations().purge(3)).isEqualTo(new PurgeResult(0, 0, 1, false));
    assertThat(inbox.operations().purge(3)).isEqualTo(new PurgeResult(0, 0, 0, false));
    assertThat(strings("SELECT event_id FROM inbox.purged ORDER BY event_id"))
        .containsExactly("m5", "m8", "m9");
  }

  @Test
  void with_a_longer_dedup_retention_purge_strips_payloads_first_and_the_id_keeps_deduplicating() {
    PostgresInbox inbox =
        manager.createInbox(
            "dedup",
            InboxOptions.builder()
                .processedRetention(Duration.ofHours(1))
                .dedupRetention(Duration.ofHours(24))
                .build());
    inbox.sendAll(
        List.of(
            NewMessage.of("old", "t", "a", "{\"secret\":1}"),
            NewMessage.of("ancient", "t", "a", "{\"secret\":2}"),
            NewMessage.of("fresh", "t", "a", "{\"k\":3}")));
    sql(
        "UPDATE inbox.dedup SET processed_at = now() - interval '2 hours', error = 'was failing' WHERE event_id = 'old'");
    sql(
        "UPDATE inbox.dedup SET processed_at = now() - interval '25 hours' WHERE event_id = 'ancient'");
    inbox.markProcessed("fresh");

    assertThat(inbox.operations().purge(100)).isEqualTo(new PurgeResult(1, 1, 0, false));
    assertThat(
            strings(
                "SELECT event_id || ':' || coalesce(payload::text, '-') || ':' || coalesce(error, '-')"
                    + " FROM inbox.dedup ORDER BY event_id"))
        .containsExactly("fresh:{\"k\": 3}:-", "old:-:-");
    assertThat(inbox.send(NewMessage.of("old", "t", "a", "{\"secret\":1}")))
        .as("still deduplicated")
        .isFalse();
    assertThat(inbox.operations().purge(100)).isEqualTo(new PurgeResult(0, 0, 0, false));
  }

  /**
   * processed_at is the start time of the processing transaction. A purge that ran while that
   * transaction was still open must not move its watermark past it, or the row is never stripped.
   */
  @Test
  void a_row_processed_by_a_transaction_open_during_a_purge_is_still_stripped() throws Exception {
    PostgresInbox inbox =
        manager.createInbox(
            "dedup_open",
            InboxOptions.builder()
                .processedRetention(Duration.ZERO)
                .dedupRetention(Duration.ofHours(24))
                .build());
    inbox.send(NewMessage.of("slow", "t", "a", "{\"secret\":1}"));
    try (Connection consumer = database.connect()) {
      consumer.setAutoCommit(false);
      try (Statement s = consumer.createStatement()) {
        s.executeQuery("SELECT * FROM inbox.claim_dedup_open(10)").close();
      }
      assertThat(inbox.operations().purge(100)).isEqualTo(new PurgeResult(0, 0, 0, false));
      consumer.commit();
    }
    assertThat(inbox.operations().purge(100)).isEqualTo(new PurgeResult(0, 1, 0, false));
    assertThat(strings("SELECT coalesce(payload::text, '-') FROM inbox.dedup_open"))
        .containsExactly("-");
  }
}
