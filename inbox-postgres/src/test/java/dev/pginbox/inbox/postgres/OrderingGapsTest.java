package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.TrackingSpec;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.operations.OrderingGap;
import dev.pginbox.inbox.operations.OrderingGap.Issue;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderingGapsTest extends InboxTestSupport {

  private static String describe(OrderingGap g) {
    return g.aggregateId()
        + " "
        + g.issue()
        + " "
        + g.sequence()
        + " after "
        + g.previousSequence();
  }

  @Test
  void integer_sequence_gaps_including_right_after_the_last_processed_message() {
    sql(
        "CREATE TABLE public.seq_events (id text PRIMARY KEY, kind text, done timestamptz, agg text, n bigint,"
            + " tries int NOT NULL DEFAULT 0, err text)");
    PostgresInbox inbox =
        manager.enableTracking(
            TrackingSpec.builder("seq_gaps", "public.seq_events")
                .idColumn("id")
                .eventTypeColumn("kind")
                .processedAtColumn("done")
                .aggregateColumn("agg")
                .receivedAtColumn(null)
                .retryCountColumn("tries")
                .errorColumn("err")
                .maxRetries(2)
                .build());
    manager.enableOrdering("seq_gaps", "agg", "n");
    sql(
        "INSERT INTO public.seq_events (id, kind, agg, n, done) VALUES"
            + " ('a1', 't', 'A', 1, now()), ('a2', 't', 'A', 2, now()), ('a4', 't', 'A', 4, NULL), ('a5', 't', 'A', 5, NULL),"
            + " ('b1', 't', 'B', 1, NULL), ('b2', 't', 'B', 2, NULL), ('b2bis', 't', 'B', 2, NULL), ('b6', 't', 'B', 6, NULL),"
            + " ('c3', 't', 'C', 3, now()), ('c1', 't', 'C', 1, NULL), ('c4', 't', 'C', 4, NULL),"
            + " ('d1', 't', 'D', 1, NULL), ('d2', 't', 'D', 2, NULL),"
            + " ('e1', 't', 'E', 1, now()), ('e2', 't', 'E', 2, NULL)");
    sql("UPDATE public.seq_events SET tries = 2 WHERE id = 'd1'");

    assertThat(inbox.orderingGaps())
        .extracting(OrderingGapsTest::describe)
        .containsExactly(
            "A SEQUENCE_GAP 4 after 2", // right after the last processed message
            "B DUPLICATE_SEQUENCE 2 after 2",
            "B SEQUENCE_GAP 6 after 2",
            "C OUT_OF_ORDER 1 after 3", // arrived after 3 was processed
            "D BLOCKED_BY_DEAD_LETTER 1 after null");
    assertThat(inbox.orderingGaps())
        .filteredOn(g -> g.aggregateId().equals("B") && g.issue() == Issue.SEQUENCE_GAP)
        .singleElement()
        .satisfies(g -> assertThat(g.detail()).isEqualTo("sequences 3 to 5 are missing"));
  }

  @Test
  void timestamp_sequence_reports_messages_older_than_a_processed_one_and_dead_heads() {
    PostgresInbox inbox =
        manager.createInbox("ts_gaps", InboxOptions.builder().maxRetries(1).build());
    manager.enableOrdering("ts_gaps", "aggregate_id", "received_at");
    sql(
        "INSERT INTO inbox.ts_gaps (event_id, event_type, aggregate_id, received_at, processed_at) VALUES"
            + " ('a-new', 't', 'A', '2026-01-01 10:05+00', now()),"
            + " ('a-late', 't', 'A', '2026-01-01 10:00+00', NULL),"
            + " ('b1', 't', 'B', '2026-01-01 10:00+00', now()),"
            + " ('b2', 't', 'B', '2026-01-01 10:10+00', NULL),"
            + " ('b3', 't', 'B', '2026-01-01 10:10+00', NULL)," // same timestamp: not a finding
            + " ('c1', 't', 'C', '2026-01-01 10:00+00', NULL),"
            + " ('c2', 't', 'C', '2026-01-01 10:01+00', NULL)");
    inbox.markFailed("c1", "poison");

    assertThat(inbox.orderingGaps())
        .extracting(OrderingGap::aggregateId, OrderingGap::issue, OrderingGap::eventId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("A", Issue.OUT_OF_ORDER, "a-late"),
            org.assertj.core.groups.Tuple.tuple("C", Issue.BLOCKED_BY_DEAD_LETTER, "c1"));

    inbox.operations().replay(DeadLetterSelection.ids(List.of("c1")));
    assertThat(inbox.orderingGaps()).extracting(OrderingGap::aggregateId).containsExactly("A");
  }

  @Test
  void gaps_need_ordering() {
    PostgresInbox inbox = manager.createInbox("no_ordering");
    inbox.send(NewMessage.of("x", "t", "a", null));
    assertThatThrownBy(inbox::orderingGaps)
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("ordering is not enabled");
  }
}
