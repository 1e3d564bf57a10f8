package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxAlreadyExistsException;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.TrackingSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An inbox reserves every name it derives in schema inbox (table, views, indexes), including those
 * of features it has not enabled yet, so that no other inbox can ever want the same object.
 */
class NameReservationTest extends InboxTestSupport {

  @ParameterizedTest(name = "{0} then {1}")
  @CsvSource({
    // the second wants the first's next_<name> view, or the other way round
    "rsv_a, next_rsv_a, next_rsv_a",
    "next_rsv_b, rsv_b, next_rsv_b",
    // both want next_rsv_c_pending: the pending view of one, the ordering view of the other
    "next_rsv_c, rsv_c_pending, next_rsv_c_pending",
    "rsv_d_pending, next_rsv_d, next_rsv_d_pending",
    // an inbox named like another's index
    "rsv_e, rsv_e_claim_idx, rsv_e_claim_idx",
    "rsv_f_ordering_idx, rsv_f, rsv_f_ordering_idx",
    // an inbox named like another's key, which the single send names in its ON CONFLICT
    "rsv_i_pkey, rsv_i, rsv_i_pkey",
  })
  void an_inbox_whose_derived_names_collide_with_another_inboxs_is_refused(
      String first, String second, String collision) {
    manager.createInbox(first);

    assertThatThrownBy(() -> manager.createInbox(second))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("collides with inbox '" + first + "'")
        .hasMessageContaining("inbox." + collision)
        .extracting(e -> ((InboxException) e).sqlState().orElseThrow())
        .isEqualTo("42710");
    assertThat(manager.exists(second)).isFalse();
    assertThat(count("SELECT count(*) FROM pg_class WHERE relname = ? AND relkind = 'r'", second))
        .isZero();

    // the first inbox is whole: every feature still works and drops cleanly
    manager.enableOrdering(first);
    PostgresInbox inbox = manager.inbox(first);
    inbox.send(NewMessage.of("m1", "t", "agg", null));
    assertThat(count("SELECT count(*) FROM inbox.next_" + first)).isEqualTo(1);
    manager.dropInbox(first, true);
  }

  @Test
  void a_tracked_table_reserves_the_same_names() {
    sql(
        "CREATE TABLE public.rsv_tracked_events (event_id text PRIMARY KEY, event_type text,"
            + " processed_at timestamptz, received_at timestamptz DEFAULT now(), aggregate_id text,"
            + " retry_count int, error text)");
    manager.enableTracking(TrackingSpec.builder("rsv_g", "public.rsv_tracked_events").build());

    assertThatThrownBy(() -> manager.createInbox("next_rsv_g"))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("collides with inbox 'rsv_g'");
  }

  @Test
  void a_function_named_like_a_derived_function_is_never_replaced() {
    sql("CREATE FUNCTION inbox.claim_rsv_h() RETURNS integer LANGUAGE sql RETURN 42");

    assertThatThrownBy(() -> manager.createInbox("rsv_h"))
        .isInstanceOf(InboxAlreadyExistsException.class)
        .hasMessageContaining("function inbox.claim_rsv_h already exists");
    assertThat(count("SELECT inbox.claim_rsv_h()")).isEqualTo(42);
  }
}
