package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;

/**
 * inbox.worker_heartbeat (009_workers.sql) hands a surplus partition over while its owner keeps
 * claiming: a surplus that one of the owner's claim transactions is using cannot be given up at
 * once, but its lease ends at that heartbeat, so the worker below its share takes it at its own
 * next heartbeat once the claim has ended, not one heartbeat of the owner later. A partition is
 * still never claimed by two workers at once.
 */
class LeaseHandOverTest extends InboxTestSupport {

  private static List<Integer> heartbeat(Handle h, String inbox, String worker) {
    return h.select(
            "SELECT unnest(inbox.worker_heartbeat(?, ?, 2, interval '1 hour'))", inbox, worker)
        .mapTo(Integer.class)
        .list();
  }

  private static List<Integer> guard(Handle h, String inbox, String worker) {
    return h.select("SELECT unnest(inbox.lease_guard(?, ?, ARRAY[0, 1]))", inbox, worker)
        .mapTo(Integer.class)
        .list();
  }

  @Test
  void a_busy_surplus_goes_to_the_worker_below_its_share_once_the_claim_ends() {
    String inbox = "hand_over";
    manager.createInbox(inbox);
    try (Handle a = jdbi.open();
        Handle claim = jdbi.open();
        Handle b = jdbi.open()) {
      assertThat(heartbeat(a, inbox, "a")).containsExactly(0, 1);
      assertThat(heartbeat(b, inbox, "b")).as("nothing free yet").isEmpty();

      // A claim transaction of "a" on both partitions, as every claim statement starts.
      claim.begin();
      assertThat(guard(claim, inbox, "a")).containsExactly(0, 1);

      // "a" sees two live workers: partition 1 is its surplus, busy, so it is left out.
      assertThat(heartbeat(a, inbox, "a")).containsExactly(0);
      // While the claim runs, "b" cannot take it (the claim's lock), and "a" claims only 0 next.
      assertThat(heartbeat(b, inbox, "b")).isEmpty();

      claim.commit();
      // The claim is over: "b" takes partition 1 at its next heartbeat, before "a" beats again.
      assertThat(heartbeat(b, inbox, "b")).containsExactly(1);
      assertThat(guard(claim, inbox, "a")).containsExactly(0);
      assertThat(guard(claim, inbox, "b")).containsExactly(1);
      assertThat(heartbeat(a, inbox, "a")).containsExactly(0);
    }
  }
}
