package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.BlockedAggregate;
import dev.pginbox.inbox.operations.BlockedAggregate.Reason;
import dev.pginbox.inbox.operations.DeadLetter;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.DlqGroup;
import dev.pginbox.inbox.operations.InboxOperations;
import dev.pginbox.inbox.operations.OperatorLogEntry;
import dev.pginbox.inbox.operations.PartitionLag;
import dev.pginbox.inbox.operations.WorkerInfo;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

class OperatorViewsTest extends InboxTestSupport {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Five aggregates a0..a4 with ten messages each, in order e1..e50 (aggregate = n % 5). */
  private static PostgresInbox orderedInbox(String name) {
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name);
    for (int n = 1; n <= 50; n++) {
      inbox.send(NewMessage.of("e" + n, "order.placed", "a" + (n % 5), "{\"n\": " + n + "}"));
    }
    return inbox;
  }

  @Test
  void blocked_aggregates_name_each_reason_and_count_the_messages_behind_the_head()
      throws Exception {
    PostgresInbox inbox = orderedInbox("blocked");
    // a1's head e1 is dead, a2's head e2 backs off; a3's head e3 is claimed by an open transaction.
    sql(
        "UPDATE inbox.blocked SET retry_count = 3, error = 'no such customer 42' WHERE event_id = 'e1'");
    sql(
        "UPDATE inbox.blocked SET retry_count = 1, error = 'timeout',"
            + " next_attempt_at = now() + interval '1 hour' WHERE event_id = 'e2'");
    try (Handle holder = jdbi.open()) {
      holder.begin();
      holder.execute("UPDATE inbox.blocked SET processed_at = now() WHERE event_id = 'e3'");
      int holderPid = holder.select("SELECT pg_backend_pid()").mapTo(Integer.class).one();

      Map<String, BlockedAggregate> blocked =
          inbox.operations().blockedAggregates(100).stream()
              .collect(Collectors.toMap(BlockedAggregate::aggregateId, Function.identity()));

      assertThat(blocked).containsOnlyKeys("a1", "a2", "a3");
      assertThat(blocked.get("a1").reason()).isEqualTo(Reason.DEAD_LETTER);
      assertThat(blocked.get("a1").eventId()).isEqualTo("e1");
      assertThat(blocked.get("a1").error()).isEqualTo("no such customer 42");
      assertThat(blocked.get("a1").waitingBehind()).isEqualTo(9);
      assertThat(blocked.get("a2").reason()).isEqualTo(Reason.BACKING_OFF);
      assertThat(blocked.get("a2").blockedUntil()).isNotNull();
      assertThat(blocked.get("a3").reason()).isEqualTo(Reason.CLAIMED);
      assertThat(blocked.get("a3").claimedByPid()).isEqualTo(holderPid);
      assertThat(inbox.operations().blockedAggregates(2)).hasSize(2);

      JsonNode health = JSON.readTree(inbox.status().json());
      assertThat(health.path("blocked_aggregates").asLong()).isEqualTo(3);
      holder.rollback();
    }
    // The holder is gone: its aggregate is claimable again.
    assertThat(inbox.operations().blockedAggregates(100))
        .extracting(BlockedAggregate::aggregateId)
        .containsExactlyInAnyOrder("a1", "a2");
  }

  @Test
  void an_inbox_without_ordering_has_no_blocked_aggregates() {
    PostgresInbox inbox = manager.createInbox("unordered");
    inbox.send(NewMessage.of("x", "t", "a", null));
    sql("UPDATE inbox.unordered SET retry_count = 3");
    assertThat(inbox.operations().blockedAggregates(10)).isEmpty();
    assertThat(inbox.health().status()).isNotNull();
  }

  @Test
  void dlq_groups_strip_numbers_and_ids_and_a_group_replay_touches_only_that_group() {
    PostgresInbox inbox = manager.createInbox("groups");
    for (int n = 1; n <= 6; n++) {
      inbox.send(NewMessage.of("g" + n, n <= 4 ? "order.placed" : "order.paid", "a" + n, null));
    }
    inbox.send(NewMessage.of("pending", "order.placed", "p", null));
    sql(
        "UPDATE inbox.groups SET retry_count = 3, error = 'timeout after ' || (1000 * length(event_id)) || ' ms' WHERE event_id IN ('g1', 'g2')");
    sql(
        "UPDATE inbox.groups SET retry_count = 3, error = 'customer 3f2a9c1d-0b7e-4c1a-9a51-1c2b3d4e5f60 unknown' WHERE event_id IN ('g3', 'g4')");
    sql(
        "UPDATE inbox.groups SET retry_count = 3, error = 'timeout after 7 ms' WHERE event_id IN ('g5', 'g6')");
    sql(
        "UPDATE inbox.groups SET retry_count = 1, error = 'timeout after 9 ms' WHERE event_id = 'pending'");

    InboxOperations ops = inbox.operations().asActor("alice");
    List<DlqGroup> groups = ops.dlqGroups(100);
    assertThat(groups)
        .extracting(DlqGroup::eventType, DlqGroup::errorGroup, DlqGroup::count)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("order.placed", "timeout after <n> ms", 2L),
            org.assertj.core.groups.Tuple.tuple("order.placed", "customer <id> unknown", 2L),
            org.assertj.core.groups.Tuple.tuple("order.paid", "timeout after <n> ms", 2L));

    DeadLetterSelection timeouts =
        DeadLetterSelection.group("order.placed", "timeout after <n> ms");
    assertThat(ops.countDeadLetters(timeouts)).isEqualTo(2);
    assertThat(ops.deadLetterPage(timeouts, 10, null, null))
        .extracting(DeadLetter::eventId)
        .containsExactly("g1", "g2");
    assertThat(ops.replay(timeouts)).isEqualTo(2);

    assertThat(inbox.deadLetters(100))
        .extracting(m -> m.eventId())
        .containsExactlyInAnyOrder("g3", "g4", "g5", "g6");
    assertThat(count("SELECT retry_count FROM inbox.groups WHERE event_id = 'pending'"))
        .isEqualTo(1);
    OperatorLogEntry entry = ops.auditLog(1, null).get(0);
    assertThat(entry.action()).isEqualTo("replay");
    assertThat(entry.actor()).isEqualTo("alice");
    assertThat(entry.rowsAffected()).isEqualTo(2);
    assertThat(entry.arguments()).contains("timeout after <n> ms");
  }

  @Test
  void dead_letter_pages_follow_each_other_without_gaps_or_repeats() {
    PostgresInbox inbox = manager.createInbox("pages");
    for (int n = 0; n < 25; n++) {
      inbox.send(NewMessage.of(String.format("d%02d", n), "t", "a", null));
    }
    sql("UPDATE inbox.pages SET retry_count = 3, error = 'x', received_at = now()");
    InboxOperations ops = inbox.operations();
    List<String> seen = new java.util.ArrayList<>();
    List<DeadLetter> page = ops.deadLetterPage(null, 10, null, null);
    while (!page.isEmpty()) {
      page.forEach(d -> seen.add(d.eventId()));
      DeadLetter last = page.get(page.size() - 1);
      page = ops.deadLetterPage(null, 10, last.receivedAt(), last.eventId());
    }
    assertThat(seen).hasSize(25).doesNotHaveDuplicates();
    assertThatThrownBy(() -> ops.deadLetterPage(null, 1001, null, null))
        .isInstanceOf(InvalidInboxArgumentException.class);
  }

  @Test
  void every_operator_action_is_audited_with_role_and_application_but_the_retention_sweep_is_not() {
    PostgresInbox inbox = manager.createInbox("audited");
    inbox.send(NewMessage.of("x1", "t", "a", null));
    inbox.send(NewMessage.of("x2", "t", "a", null));
    sql("UPDATE inbox.audited SET retry_count = 3, error = 'e'");
    InboxOperations ops = inbox.operations().asActor("bob");
    assertThat(inbox.operations().replay(DeadLetterSelection.ids(List.of("x1")))).isEqualTo(1);
    assertThat(ops.discard(DeadLetterSelection.ids(List.of("x2")))).isEqualTo(1);
    sql("UPDATE inbox.audited SET processed_at = now() - interval '100 days'");
    // The workers' sweep marks itself and is not an operator action.
    assertThat(
            strings(
                "SELECT CASE WHEN set_config('inbox.retention_sweep', 'on', true) = 'on'"
                    + " THEN inbox.purge_inbox('audited', 1)::text END"))
        .hasSize(1);
    assertThat(ops.purge(10).deletedProcessed()).isEqualTo(1);
    manager.enableOrdering("audited");

    List<OperatorLogEntry> log = ops.auditLog(100, null);
    assertThat(log)
        .extracting(OperatorLogEntry::action)
        .containsExactly("enable_ordering", "purge", "mark_processed", "replay", "create_inbox");
    assertThat(log.get(1).actor()).isEqualTo("bob");
    assertThat(log.get(1).rowsAffected()).isEqualTo(1);
    assertThat(log.get(2).arguments()).contains("x2");
    assertThat(log).allSatisfy(e -> assertThat(e.role()).isNotBlank());
    assertThat(log.get(0).id()).isGreaterThan(log.get(1).id());
    assertThat(ops.auditLog(2, log.get(1).id()))
        .extracting(OperatorLogEntry::action)
        .containsExactly("mark_processed", "replay");

    manager.dropInbox("audited", true);
    assertThat(manager.auditLog(1, null).get(0).action()).isEqualTo("drop_inbox");
  }

  @Test
  void the_audit_keeps_a_bounded_copy_of_huge_arguments() {
    PostgresInbox inbox = manager.createInbox("huge");
    List<String> ids = java.util.stream.IntStream.range(0, 5000).mapToObj(i -> "id-" + i).toList();
    assertThat(inbox.operations().replay(DeadLetterSelection.ids(ids))).isZero();
    OperatorLogEntry entry = inbox.operations().auditLog(1, null).get(0);
    assertThat(entry.arguments()).contains("\"truncated\": true");
    // 5,000 ids are about 50 kB of JSON; the log keeps 8 kB of it (plus JSON escaping).
    assertThat(entry.arguments().length()).isLessThan(20_000);
  }

  @Test
  void partition_lag_leaves_backing_off_messages_out_of_the_lag_and_names_lease_owners() {
    PostgresInbox inbox = manager.createInbox("lagging");
    for (int n = 0; n < 40; n++) {
      inbox.send(NewMessage.of("m" + n, "t", "agg" + n, null));
    }
    sql("UPDATE inbox.lagging SET received_at = now() - interval '1 hour'");
    List<PartitionLag> one = inbox.operations().partitionLag();
    assertThat(one).hasSize(1);
    assertThat(one.get(0).partition()).isNull();
    assertThat(one.get(0).waiting()).isEqualTo(40);
    assertThat(one.get(0).oldestEligibleAgeSeconds()).isGreaterThanOrEqualTo(3600);
    assertThat(inbox.health().worstPartitionLagSeconds()).isGreaterThanOrEqualTo(3600);

    // All old messages back off: no lag, but counted as backing off.
    sql("UPDATE inbox.lagging SET retry_count = 1, next_attempt_at = now() + interval '1 hour'");
    inbox.send(NewMessage.of("fresh", "t", "x", null));
    PartitionLag after = inbox.operations().partitionLag().get(0);
    assertThat(after.backingOff()).isEqualTo(40);
    assertThat(after.waiting()).isEqualTo(1);
    assertThat(after.oldestEligibleAgeSeconds()).isLessThan(3600);

    strings("SELECT inbox.worker_heartbeat('lagging', 'w-a', 4, interval '1 minute')::text");
    List<PartitionLag> parts = inbox.operations().partitionLag();
    assertThat(parts).extracting(PartitionLag::partition).containsExactly(0, 1, 2, 3);
    assertThat(parts).allSatisfy(p -> assertThat(p.owner()).isEqualTo("w-a"));
    assertThat(parts.stream().mapToLong(PartitionLag::backingOff).sum()).isEqualTo(40);
    assertThat(parts.stream().mapToLong(PartitionLag::waiting).sum()).isEqualTo(1);
    // The worst partition is the one holding the only claimable message, "fresh".
    int freshPartition =
        (int)
            count(
                "SELECT inbox.inbox_bucket_owner(bucket, 4) FROM inbox.lagging WHERE event_id = 'fresh'");
    assertThat(inbox.health().worstPartitionLagSeconds()).isLessThan(3600);
    assertThat(count("SELECT (inbox.inbox_health('lagging') ->> 'worst_partition')::bigint"))
        .isEqualTo(freshPartition);
  }

  @Test
  void workers_are_live_silent_or_stopped_and_lease_only_workers_are_listed() {
    PostgresInbox inbox = manager.createInbox("staffed");
    strings(
        "SELECT inbox.worker_announce('staffed', 'java-1', '{\"host\": \"h1\", \"pid\": 7, \"assignment\": \"all\","
            + " \"concurrency\": 2, \"claim_ahead\": true}')::text");
    // Details of the wrong type (a worker of another language, or a bug) read as unknown.
    strings(
        "SELECT inbox.worker_announce('staffed', 'java-2', '{\"assignment\": \"all\","
            + " \"concurrency\": \"two\", \"claim_ahead\": \"yes\"}')::text");
    strings("SELECT inbox.worker_stopped('staffed', 'java-2')::text");
    sql(
        "INSERT INTO inbox.inbox_worker_registry (inbox_name, worker_id, heartbeat_at)"
            + " VALUES ('staffed', 'java-3', now() - interval '10 minutes')");
    strings("SELECT inbox.worker_heartbeat('staffed', 'go-1', 2, interval '1 minute')::text");

    Map<String, WorkerInfo> workers =
        inbox.operations().workers().stream()
            .collect(Collectors.toMap(WorkerInfo::workerId, Function.identity()));
    assertThat(workers.get("java-1").state()).isEqualTo(WorkerInfo.State.LIVE);
    assertThat(workers.get("java-1").host()).isEqualTo("h1");
    assertThat(workers.get("java-1").pid()).isEqualTo(7L);
    assertThat(workers.get("java-1").concurrency()).isEqualTo(2);
    assertThat(workers.get("java-1").claimAhead()).isTrue();
    assertThat(workers.get("java-2").concurrency()).isNull();
    assertThat(workers.get("java-2").claimAhead()).isNull();
    assertThat(workers.get("java-2").state()).isEqualTo(WorkerInfo.State.STOPPED);
    assertThat(workers.get("java-3").state()).isEqualTo(WorkerInfo.State.SILENT);
    assertThat(workers.get("go-1").partitionsHeld()).containsExactly(0, 1);
    assertThat(workers.get("go-1").assignment()).isEqualTo("automatic");
  }

  @Test
  void a_message_is_shown_in_full_whatever_its_state() {
    PostgresInbox inbox = manager.createInbox("detail");
    inbox.send(new NewMessage("d1", "t", "src", "a", "{\"k\": [1, 2]}", "trace-1"));
    var message = inbox.operations().message("d1").orElseThrow();
    assertThat(message.state()).isEqualTo("pending");
    assertThat(message.payload()).contains("\"k\"");
    assertThat(message.traceId()).isEqualTo("trace-1");
    assertThat(inbox.operations().message("nope")).isEmpty();
    assertThat(inbox.operations().throughput(60)).hasSize(60);
  }
}
