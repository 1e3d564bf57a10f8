package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A message's "priority" (priority_of_&lt;name&gt;) and "bucket" (inbox_bucket of its aggregate)
 * are computed however it arrives: send_&lt;name&gt; computes them in its INSERT, a trigger for any
 * other INSERT and when the columns they depend on change. They used to be generated columns, which
 * PostgreSQL prepares again at the start of every INSERT: 40 % of a single-row INSERT
 * (docs/performance.md, "Produce").
 */
class DerivedColumnsTest extends InboxTestSupport {

  /** Each row as "event_id:priority:bucket", the bucket checked against inbox_bucket. */
  private static List<String> derived(String name) {
    return strings(
        "SELECT event_id || ':' || priority || ':' || "
            + "CASE WHEN bucket = inbox.inbox_bucket(aggregate_id) THEN 'bucket ok' "
            + "ELSE 'bucket ' || coalesce(bucket::text, 'NULL') END "
            + "FROM inbox."
            + name
            + " ORDER BY event_id");
  }

  @Test
  void every_way_in_computes_priority_and_bucket() {
    PostgresInbox inbox = manager.createInbox("derived_in");
    sql("SELECT inbox.enable_inbox_priority('derived_in', 'event_type', '{\"urgent\": 1}')");

    sql(
        "INSERT INTO inbox.derived_in (event_id, event_type, aggregate_id) "
            + "VALUES ('a-insert', 'urgent', 'acct-1'), ('b-insert-null', 'other', NULL)");
    inbox.send(NewMessage.of("c-send-one", "urgent", "acct-2", null));
    inbox.sendAll(
        List.of(
            NewMessage.of("d-send-all", "other", "acct-3", null),
            NewMessage.of("e-send-all", "urgent", "acct-4", null)));
    // The owner may set either, as it may set seq; a NULL is filled in.
    sql(
        "INSERT INTO inbox.derived_in (event_id, event_type, aggregate_id, priority, bucket) "
            + "VALUES ('f-owner', 'other', 'acct-5', 7, NULL)");

    assertThat(derived("derived_in"))
        .containsExactly(
            "a-insert:1:bucket ok",
            "b-insert-null:999:bucket ok",
            "c-send-one:1:bucket ok",
            "d-send-all:999:bucket ok",
            "e-send-all:1:bucket ok",
            "f-owner:7:bucket ok");
  }

  @Test
  void changing_the_type_or_the_aggregate_computes_them_again() {
    PostgresInbox inbox = manager.createInbox("derived_change");
    sql("SELECT inbox.enable_inbox_priority('derived_change', 'event_type', '{\"urgent\": 1}')");
    inbox.sendAll(
        List.of(
            NewMessage.of("m-1", "other", "acct-1", null),
            NewMessage.of("m-2", "urgent", "acct-2", null)));

    sql("UPDATE inbox.derived_change SET event_type = 'urgent' WHERE event_id = 'm-1'");
    sql("UPDATE inbox.derived_change SET aggregate_id = 'acct-moved' WHERE event_id = 'm-2'");
    assertThat(derived("derived_change")).containsExactly("m-1:1:bucket ok", "m-2:1:bucket ok");

    // A new map recomputes the waiting messages (enable_inbox_priority updates event_type).
    sql("SELECT inbox.enable_inbox_priority('derived_change', 'event_type', '{\"other\": 3}')");
    assertThat(derived("derived_change")).containsExactly("m-1:999:bucket ok", "m-2:999:bucket ok");
    // Work on a message (a claim, a failure) leaves both alone.
    sql(
        "UPDATE inbox.derived_change SET priority = 5, processed_at = now(), retry_count = 1 "
            + "WHERE event_id = 'm-1'");
    assertThat(derived("derived_change")).first().isEqualTo("m-1:5:bucket ok");
  }

  @Test
  void no_generated_column_is_prepared_at_every_insert() {
    manager.createInbox("derived_plain");
    assertThat(
            count(
                "SELECT count(*) FROM pg_attribute WHERE attrelid = 'inbox.derived_plain'::regclass"
                    + " AND attname IN ('priority', 'bucket') AND attgenerated = ''"))
        .isEqualTo(2);
  }
}
