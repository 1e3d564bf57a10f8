package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.operations.DeadLetterSelection;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bring-your-own-table workflow: track a table, run a worker on it, fail a message until it is
 * a dead letter, replay it, process it; then drop the inbox and find the table exactly as it was.
 * Once for a table with every standard column (and the opt-in notification trigger), once for a
 * table with only an id, a type and a processed-at column, whose retry state lives in the inbox's
 * side table (and whose worker polls).
 */
class TrackedTableWorkerTest extends WorkerTestSupport {

  private static final Map<String, String> TABLES =
      Map.of(
          "standard",
          "(event_id text PRIMARY KEY, event_type text NOT NULL, aggregate_id text, payload jsonb,"
              + " received_at timestamptz NOT NULL DEFAULT now(), processed_at timestamptz,"
              + " retry_count integer NOT NULL DEFAULT 0, error text)",
          "minimal",
          "(id bigint PRIMARY KEY, kind text NOT NULL, done_at timestamp)");

  @ParameterizedTest
  @ValueSource(strings = {"standard", "minimal"})
  void a_tracked_table_is_consumed_failed_to_the_dlq_replayed_and_left_as_it_was(String layout)
      throws Exception {
    boolean standard = layout.equals("standard");
    String inbox = "tracked_" + layout;
    String table = "app_" + layout + ".events";
    execute("CREATE SCHEMA app_" + layout);
    execute("CREATE TABLE " + table + " " + TABLES.get(layout));
    execute("CREATE INDEX ON " + table + " (" + (standard ? "event_type" : "kind") + ")");
    String before = catalogSnapshot(table);

    PostgresInboxManager manager = PostgresInboxManager.create(dataSource());
    if (standard) {
      execute(
          "SELECT inbox.enable_inbox_tracking('" + inbox + "', '" + table + "', p_notify => true)");
    } else {
      execute(
          "SELECT inbox.enable_inbox_tracking('"
              + inbox
              + "', '"
              + table
              + "', p_id_column => 'id', p_event_type_column => 'kind',"
              + " p_processed_at_column => 'done_at')");
      assertThat(catalogSnapshot(table)).as("nothing added to the table").isEqualTo(before);
    }

    Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    Map<String, String> payloads = new ConcurrentHashMap<>();
    AtomicBoolean fixed = new AtomicBoolean();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(),
                    options(inbox, true)
                        // Without the trigger nothing notifies: polling must find the messages.
                        .pollInterval(Duration.ofMillis(standard ? 2000 : 50))
                        .build())
                .handler(
                    (message, tx) -> {
                      attempts
                          .computeIfAbsent(message.eventId(), k -> new AtomicInteger())
                          .incrementAndGet();
                      if (message.payload() != null) {
                        payloads.put(message.eventId(), message.payload());
                      }
                      if (message.eventType().equals("bad") && !fixed.get()) {
                        return Outcome.retryAfter(
                            Duration.ofMillis(1), "broken #" + message.retryCount());
                      }
                      return Outcome.processed();
                    })
                .build());
    worker.start();

    if (standard) {
      execute(
          "INSERT INTO "
              + table
              + " (event_id, event_type, aggregate_id, payload) VALUES"
              + " ('1', 'good', 'a', '{\"n\": 1}'), ('2', 'bad', 'b', '{\"n\": 2}')");
    } else {
      execute("INSERT INTO " + table + " (id, kind) VALUES (1, 'good'), (2, 'bad')");
    }
    String processedAt = standard ? "processed_at" : "done_at";
    String id = standard ? "event_id" : "id";
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + "_dlq") == 1
                    && count(
                            "SELECT count(*) FROM "
                                + table
                                + " WHERE "
                                + processedAt
                                + " IS NOT NULL")
                        == 1);
    assertThat(attempts.get("2").get()).as("three attempts, then the DLQ").isEqualTo(3);
    assertThat(attempts.get("1").get()).isEqualTo(1);
    assertThat(strings("SELECT " + id + "::text FROM inbox." + inbox + "_dlq"))
        .containsExactly("2");
    assertThat(
            strings(
                "SELECT error || ':' || retry_count FROM inbox.inbox_messages('"
                    + inbox
                    + "', 'dead')"))
        .containsExactly("broken #2:3");
    assertThat(count("SELECT (inbox.inbox_health('" + inbox + "') ->> 'dlq_count')::bigint"))
        .isEqualTo(1);
    if (standard) {
      assertThat(payloads).containsEntry("1", "{\"n\": 1}");
      assertThat(strings("SELECT retry_count || error FROM " + table + " WHERE event_id = '2'"))
          .as("the table's own retry columns are used")
          .containsExactly("3broken #2");
    } else {
      assertThat(strings("SELECT retry_count || error FROM inbox." + inbox + "_retry_state"))
          .containsExactly("3broken #2");
    }

    fixed.set(true);
    assertThat(manager.inbox(inbox).operations().replay(DeadLetterSelection.ids(List.of("2"))))
        .isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM " + table + " WHERE " + processedAt + " IS NOT NULL")
                    == 2);
    assertThat(attempts.get("2").get()).isEqualTo(4);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + "_dlq")).isZero();

    worker.stop();
    manager.dropInbox(inbox, true);
    assertThat(catalogSnapshot(table)).as("the table as it was before tracking").isEqualTo(before);
    assertThat(count("SELECT count(*) FROM " + table)).isEqualTo(2);
    assertThat(
            count(
                "SELECT count(*) FROM pg_class WHERE relnamespace = 'inbox'::regnamespace"
                    + " AND relname LIKE '"
                    + inbox
                    + "%'"))
        .as("nothing of the inbox is left")
        .isZero();
    assertThat(
            count(
                "SELECT count(*) FROM pg_proc WHERE pronamespace = 'inbox'::regnamespace"
                    + " AND proname LIKE '%"
                    + inbox
                    + "'"))
        .isZero();
  }

  /** Columns, indexes and triggers of a table, from the system catalogs. */
  private static String catalogSnapshot(String table) {
    return String.join(
            "\n",
            strings(
                "SELECT attnum || ' ' || attname || ' ' || format_type(atttypid, atttypmod) || ' '"
                    + " || attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')"
                    + " FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid"
                    + " AND d.adnum = a.attnum WHERE a.attrelid = '"
                    + table
                    + "'::regclass ORDER BY attnum"))
        + "\n"
        + String.join(
            "\n",
            strings(
                "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = '"
                    + table
                    + "'::regclass ORDER BY 1"))
        + "\n"
        + String.join(
            "\n",
            strings(
                "SELECT tgname || ' ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = '"
                    + table
                    + "'::regclass ORDER BY 1"));
  }

  private static List<String> strings(String sql) {
    try (Handle h = JDBI.open()) {
      return h.createQuery(sql).mapTo(String.class).list();
    }
  }
}
