package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A queue's statistics are always stale. Analyzed while nothing was pending, the planner believes
 * the pending rows' partial indexes empty and, for the claim's UPDATE, preferred scanning one of
 * them (filtering on ctid) over the TID scan: every claim then read the whole backlog, and a drain
 * of 100,000 slowed tenfold (docs/performance.md, "Claim"). The claim's plans are read here with
 * auto_explain at NOTICE level.
 */
class ClaimPlanTest extends InboxTestSupport {

  @ParameterizedTest(name = "ordered={0}")
  @ValueSource(booleans = {false, true})
  void after_statistics_that_saw_no_backlog_the_claim_updates_by_tid(boolean ordered)
      throws Exception {
    String name = ordered ? "plan_ordered" : "plan_plain";
    PostgresInbox inbox = createInbox(name, ordered);
    inbox.send(NewMessage.of("first", "t", "a0", null));
    jdbi.useTransaction(
        h -> h.select("SELECT count(*) FROM inbox.claim_" + name + "(10)").mapTo(Long.class).one());
    sql("ANALYZE inbox." + name); // statistics: nothing pending
    inbox.sendAll(
        IntStream.range(0, 5_000)
            .mapToObj(i -> NewMessage.of("m" + i, "t", "a" + i, null))
            .toList());

    List<String> plans = claimPlans(name);

    String update =
        plans.stream().filter(p -> p.contains("Update on " + name)).findFirst().orElseThrow();
    assertThat(update).contains("Tid Scan on " + name + " m");
    assertThat(update).doesNotContainPattern("Index (Only )?Scan using \\w+ on " + name + " m\\b");
    if (ordered) {
      // The ordered claim locks its window's rows (alias c) after reading them by TID too.
      String lock = plans.stream().filter(p -> p.contains("LockRows")).findFirst().orElseThrow();
      assertThat(lock).contains("Tid Scan on " + name + " c");
      assertThat(lock).doesNotContainPattern("Index (Only )?Scan using \\w+ on " + name + " c\\b");
    }
  }

  @ParameterizedTest(name = "ordered={0}")
  @ValueSource(booleans = {false, true})
  void a_budget_that_binds_cuts_the_batch_by_tid_too(boolean ordered) throws Exception {
    String name = ordered ? "plan_budget_ordered" : "plan_budget";
    PostgresInbox inbox = createInbox(name, ordered);
    inbox.send(NewMessage.of("first", "t", "a0", "{}"));
    jdbi.useTransaction(
        h -> h.select("SELECT count(*) FROM inbox.claim_" + name + "(10)").mapTo(Long.class).one());
    sql("ANALYZE inbox." + name); // statistics: nothing pending
    inbox.sendAll(
        IntStream.range(0, 5_000)
            .mapToObj(i -> NewMessage.of("m" + i, "t", "a" + i, "{\"n\": " + i + "}"))
            .toList());

    // A budget of 200 bytes binds after a few messages: the prefix is worked out over the locked
    // rows, which must be read by TID, not by walking the claim index.
    List<String> plans = claimPlans(name, "100, NULL, 200", -1);

    String prefix = plans.stream().filter(p -> p.contains("WindowAgg")).findFirst().orElseThrow();
    assertThat(prefix).contains("Tid Scan on " + name + " c");
    assertThat(prefix).doesNotContainPattern("Index (Only )?Scan using \\w+ on " + name + " c\\b");
  }

  /**
   * The head test reads the ordering index backwards from the candidate's own key: one entry. It
   * used to scan forwards from the aggregate's first entry, and a btree stops such a scan (bounded
   * by a row comparison) only where the comparison's first column decides, so a head whose
   * aggregate's messages share its received_at (one sendAll) walked all of them.
   */
  @Test
  void the_head_test_reads_the_ordering_index_backwards_from_the_candidate() throws Exception {
    String name = "plan_head_test";
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name, "aggregate_id", "received_at");
    inbox.sendAll(
        IntStream.range(0, 2_000)
            .mapToObj(i -> NewMessage.of("m" + i, "t", "a" + (i % 100), null))
            .toList());

    List<String> plans = claimPlans(name);

    String lock = plans.stream().filter(p -> p.contains("LockRows")).findFirst().orElseThrow();
    assertThat(lock).containsPattern("Index (Only )?Scan Backward using " + name + "_ordering_idx");
    assertThat(lock).doesNotContainPattern("Index (Only )?Scan using " + name + "_ordering_idx");
  }

  /**
   * By default plpgsql plans a statement with parameters again on every call whenever its generic
   * plan's estimate is higher, as a claim's always is (a LIMIT of unknown size): planning was a
   * fifth of a claim of 10. The claim functions keep one generic plan per session instead. A custom
   * plan has folded the arguments away (no bucket mask: no bucket test); a generic one tests its
   * parameters.
   */
  @ParameterizedTest(name = "ordered={0}")
  @ValueSource(booleans = {false, true})
  void the_claim_keeps_generic_plans(boolean ordered) throws Exception {
    String name = ordered ? "plan_generic_ordered" : "plan_generic";
    PostgresInbox inbox = createInbox(name, ordered);
    inbox.sendAll(
        IntStream.range(0, 200).mapToObj(i -> NewMessage.of("m" + i, "t", "a" + i, null)).toList());

    List<String> plans = claimPlans(name);

    String claim =
        plans.stream()
            .filter(p -> p.contains(ordered ? "LockRows" : "Update on " + name))
            .findFirst()
            .orElseThrow();
    assertThat(claim).containsPattern("\\(\\$\\d+ IS NULL\\) OR \\(get_bit\\(\\(?\\$\\d+");
  }

  private static PostgresInbox createInbox(String name, boolean ordered) {
    PostgresInbox inbox = manager.createInbox(name);
    if (ordered) {
      manager.enableOrdering(name);
    }
    return inbox;
  }

  /** The plans of the statements inside one claim of 100, rolled back. */
  private static List<String> claimPlans(String name) throws Exception {
    return claimPlans(name, "100", 100);
  }

  /** The plans of the statements inside one claim with these arguments, rolled back. */
  private static List<String> claimPlans(String name, String arguments, int expected)
      throws Exception {
    List<String> plans;
    try (Connection c = database.connect();
        Statement s = c.createStatement()) {
      explainEveryStatement(s, false);
      c.setAutoCommit(false);
      try (ResultSet rs =
          s.executeQuery("SELECT count(*) FROM inbox.claim_" + name + "(" + arguments + ")")) {
        rs.next();
        if (expected >= 0) {
          assertThat(rs.getInt(1)).isEqualTo(expected);
        } else {
          assertThat(rs.getInt(1)).isPositive().isLessThan(100);
        }
      }
      plans = notices(s);
      c.rollback();
    }
    return plans;
  }
}
