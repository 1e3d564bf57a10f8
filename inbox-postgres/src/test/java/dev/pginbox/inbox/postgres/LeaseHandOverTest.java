package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * inbox.worker_heartbeat (definitions/workers.sql) tells the other workers on the lease channel
 * when to beat, and hands a surplus partition over while its owner keeps claiming: a surplus that
 * one of the owner's claim transactions is using cannot be given up at once, but its lease ends at
 * that heartbeat, so the worker below its share takes it at its own next heartbeat once the claim
 * has ended, not one heartbeat of the owner later. A partition is still never claimed by two
 * workers at once.
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

  /**
   * A heartbeat that changes the workers (one joins, a silent one is forgotten) or gives partitions
   * up, and a worker leaving, notify the inbox's lease channel, so the others beat at once; a plain
   * renewal or a take does not.
   */
  @Test
  void heartbeats_notify_the_lease_channel_when_the_workers_change_or_partitions_come_free()
      throws SQLException {
    String inbox = "lease_news";
    manager.createInbox(inbox);
    try (Handle a = jdbi.open();
        Handle b = jdbi.open();
        Handle c = jdbi.open();
        Handle listener = jdbi.open()) {
      String channel =
          listener.select("SELECT inbox.lease_channel(?)", inbox).mapTo(String.class).one();
      assertThat(channel).isEqualTo("inbox-leases-lease_news");
      listener.execute("LISTEN \"" + channel + "\"");

      heartbeat(a, inbox, "a");
      assertThat(notifications(listener)).as("a joins").isEqualTo(1);
      heartbeat(a, inbox, "a");
      assertThat(notifications(listener)).as("a renews").isZero();
      heartbeat(b, inbox, "b");
      assertThat(notifications(listener)).as("b joins, takes nothing yet").isEqualTo(1);
      assertThat(heartbeat(a, inbox, "a")).containsExactly(0);
      assertThat(notifications(listener)).as("a gives partition 1 up").isEqualTo(1);
      assertThat(heartbeat(b, inbox, "b")).containsExactly(1);
      assertThat(notifications(listener)).as("b takes it").isZero();

      heartbeat(c, inbox, "c");
      assertThat(notifications(listener)).as("c joins").isEqualTo(1);
      // "b" and "c" last beat two hours ago: longer than a lease.
      sql(
          "UPDATE inbox.inbox_workers SET heartbeat_at = now() - interval '2 hours' "
              + "WHERE inbox_name = ? AND worker_id IN ('b', 'c')",
          inbox);
      assertThat(notifications(listener)).as("not a heartbeat").isZero();
      heartbeat(a, inbox, "a");
      assertThat(notifications(listener)).as("a forgets b and c").isEqualTo(1);

      a.execute("SELECT inbox.worker_leave(?, 'a')", inbox);
      assertThat(notifications(listener)).as("a leaves").isEqualTo(1);
      a.execute("SELECT inbox.worker_leave(?, 'a')", inbox);
      assertThat(notifications(listener)).as("a is gone already").isZero();
    }
  }

  /**
   * The notifications on {@code listener}'s channels that committed before now: a statement on it
   * takes in every one delivered so far.
   */
  private static int notifications(Handle listener) throws SQLException {
    listener.execute("SELECT 1");
    PGNotification[] received =
        listener.getConnection().unwrap(PGConnection.class).getNotifications();
    return received == null ? 0 : received.length;
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
