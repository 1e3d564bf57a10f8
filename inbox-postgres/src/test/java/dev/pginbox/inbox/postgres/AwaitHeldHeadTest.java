package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.NewMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * inbox.await_held_head (definitions/workers.sql): a claim on an ordered inbox that came back empty
 * because another transaction holds the heads waits for that transaction, and the order of the
 * aggregate is kept whether the holder commits or rolls back.
 */
class AwaitHeldHeadTest extends InboxTestSupport {

  private static PostgresInbox orderedInbox(String name) {
    PostgresInbox inbox = manager.createInbox(name);
    manager.enableOrdering(name, "aggregate_id", "seq");
    inbox.sendAll(
        List.of(
            NewMessage.of(name + "-1", "t", "a", null),
            NewMessage.of(name + "-2", "t", "a", null)));
    return inbox;
  }

  private static List<String> claim(Handle h, String inbox) {
    return h.select("SELECT event_id FROM inbox.claim_" + inbox + "(10)")
        .mapTo(String.class)
        .list();
  }

  private static boolean awaitHeldHead(Handle h, String inbox, int timeoutMillis) {
    return h.select("SELECT inbox.await_held_head(?, ?)", inbox, timeoutMillis)
        .mapTo(Boolean.class)
        .one();
  }

  /** A claim in a transaction of its own, committed. */
  private static List<String> claimAlone(String inbox) {
    return jdbi.inTransaction(h -> claim(h, inbox));
  }

  private static boolean awaitAlone(String inbox, int timeoutMillis) {
    return jdbi.inTransaction(h -> awaitHeldHead(h, inbox, timeoutMillis));
  }

  private static int pid(Handle h) {
    return h.select("SELECT pg_backend_pid()").mapTo(Integer.class).one();
  }

  /** Waits until backend {@code pid} waits for a lock. */
  private static void awaitLockWait(int pid) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'",
                        pid)
                    == 1);
  }

  @Test
  void an_empty_claim_waits_for_the_holder_of_the_head_and_then_claims_its_successor()
      throws Exception {
    orderedInbox("held_commit");
    try (Handle holder = jdbi.open();
        Handle waiter = jdbi.open()) {
      holder.begin();
      assertThat(claim(holder, "held_commit")).containsExactly("held_commit-1");
      waiter.begin();
      assertThat(claim(waiter, "held_commit")).isEmpty();
      int waiterPid = pid(waiter);
      CompletableFuture<Boolean> released =
          CompletableFuture.supplyAsync(() -> awaitHeldHead(waiter, "held_commit", 60_000));
      awaitLockWait(waiterPid);
      assertThat(released).isNotDone();

      holder.commit();
      assertThat(released.get(30, TimeUnit.SECONDS)).isTrue();
      waiter.rollback();
      waiter.begin();
      assertThat(claim(waiter, "held_commit")).containsExactly("held_commit-2");
      waiter.commit();
    }
  }

  @Test
  void a_holder_that_rolls_back_releases_the_same_head_and_nothing_behind_it() throws Exception {
    orderedInbox("held_rollback");
    try (Handle holder = jdbi.open();
        Handle waiter = jdbi.open()) {
      holder.begin();
      assertThat(claim(holder, "held_rollback")).containsExactly("held_rollback-1");
      waiter.begin();
      assertThat(claim(waiter, "held_rollback")).isEmpty();
      int waiterPid = pid(waiter);
      CompletableFuture<Boolean> released =
          CompletableFuture.supplyAsync(() -> awaitHeldHead(waiter, "held_rollback", 60_000));
      awaitLockWait(waiterPid);

      holder.rollback();
      assertThat(released.get(30, TimeUnit.SECONDS)).isTrue();
      // The waiter still holds its share lock on the head: nobody else may claim it meanwhile.
      assertThat(claimAlone("held_rollback")).isEmpty();
      waiter.rollback();
      assertThat(claimAlone("held_rollback")).containsExactly("held_rollback-1");
    }
  }

  @Test
  void a_head_free_again_after_the_empty_claim_says_claim_again() {
    orderedInbox("held_moment");
    try (Handle locker = jdbi.open();
        Handle worker = jdbi.open()) {
      // Another claim, or another worker's test of the head, holds it for a moment: this claim
      // skips it and comes back empty.
      locker.begin();
      locker.execute("SELECT 1 FROM inbox.held_moment WHERE event_id = 'held_moment-1' FOR SHARE");
      worker.begin();
      assertThat(claim(worker, "held_moment")).isEmpty();
      locker.rollback();
      // Free by the time the worker asks whether to wait: claim again, at once (it said "nothing
      // to wait for", and the worker slept until its next poll with the head claimable).
      assertThat(awaitHeldHead(worker, "held_moment", 60_000)).isTrue();
      worker.rollback();
    }
    assertThat(claimAlone("held_moment")).containsExactly("held_moment-1");
  }

  @Test
  void nothing_to_wait_for_on_an_unordered_inbox_or_when_the_time_runs_out() {
    orderedInbox("held_none");

    PostgresInbox plain = manager.createInbox("held_plain");
    plain.sendAll(List.of(NewMessage.of("p-1", "t", "a", null)));
    try (Handle holder = jdbi.open()) {
      holder.begin();
      assertThat(claim(holder, "held_plain")).containsExactly("p-1");
      assertThat(awaitAlone("held_plain", 60_000)).isFalse();
      holder.rollback();
    }

    try (Handle holder = jdbi.open()) {
      holder.begin();
      assertThat(claim(holder, "held_none")).containsExactly("held_none-1");
      assertThat(awaitAlone("held_none", 1)).isFalse();
      holder.rollback();
    }
    // The lock timeout was the function's own: the session's setting is back.
    String lockTimeout =
        jdbi.inTransaction(
            h -> {
              awaitHeldHead(h, "held_none", 1);
              return h.select("SHOW lock_timeout").mapTo(String.class).one();
            });
    assertThat(lockTimeout).isEqualTo("0");
  }
}
