package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxOptions;
import dev.pginbox.inbox.InvalidInboxArgumentException;
import dev.pginbox.inbox.MarkFailedResult;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.operations.EventTypeStats;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

class SendAndViewsTest extends InboxTestSupport {

  private static List<NewMessage> messages(String prefix, int n, String type) {
    return IntStream.range(0, n)
        .mapToObj(i -> NewMessage.of(prefix + i, type, "agg-" + (i % 3), "{\"n\":" + i + "}"))
        .toList();
  }

  @Test
  void duplicate_event_ids_are_ignored_alone_and_in_a_batch() {
    PostgresInbox inbox = manager.createInbox("dups");
    assertThat(inbox.send(NewMessage.of("e1", "t", "a", "{}"))).isTrue();
    assertThat(inbox.send(NewMessage.of("e1", "other", "b", "{}"))).isFalse();
    List<NewMessage> batch = new ArrayList<>(messages("e", 5, "t"));
    batch.add(NewMessage.of("e3", "t", "a", null)); // duplicate inside the batch itself
    assertThat(inbox.sendAll(batch)).isEqualTo(4); // e0, e2, e3, e4 (e1 exists)
    assertThat(count("SELECT count(*) FROM inbox.dups")).isEqualTo(5);
    assertThat(strings("SELECT event_type FROM inbox.dups WHERE event_id = 'e1'"))
        .containsExactly("t");
    assertThat(inbox.sendAll(List.of())).isZero();
  }

  @Test
  void a_batch_with_a_stored_id_inserts_the_others_in_the_order_given() {
    PostgresInbox inbox = manager.createInbox("stored_dup");
    assertThat(inbox.send(NewMessage.of("m", "t", "a", "{\"v\":1}"))).isTrue();
    // Ids that sort against the list order; the stored one in the middle.
    List<NewMessage> batch =
        List.of(
            NewMessage.of("z", "t", "a", null),
            NewMessage.of("m", "t", "a", "{\"v\":2}"),
            NewMessage.of("b", "t", "a", null),
            NewMessage.of("a", "t", "a", null));
    assertThat(inbox.sendAll(batch)).isEqualTo(3);
    assertThat(strings("SELECT event_id FROM inbox.stored_dup ORDER BY seq"))
        .containsExactly("m", "z", "b", "a");
    assertThat(strings("SELECT payload->>'v' FROM inbox.stored_dup WHERE event_id = 'm'"))
        .containsExactly("1");
    assertThat(inbox.sendAll(batch)).isZero();
    assertThat(count("SELECT count(*) FROM inbox.stored_dup")).isEqualTo(4);
    // A batch without duplicates (no retry) keeps the order given just as well.
    assertThat(
            inbox.sendAll(
                List.of(
                    NewMessage.of("y", "t", "a", null),
                    NewMessage.of("x", "t", "a", null),
                    NewMessage.of("w", "t", "a", null))))
        .isEqualTo(3);
    assertThat(strings("SELECT event_id FROM inbox.stored_dup ORDER BY seq"))
        .containsExactly("m", "z", "b", "a", "y", "x", "w");
  }

  @Test
  void a_send_function_call_with_arrays_of_unequal_length_is_refused_and_inserts_nothing() {
    manager.createInbox("ragged");
    // A payload array one short used to be padded with NULL: the last message lost its payload.
    for (String call :
        List.of(
            "SELECT inbox.send_ragged('{r1,r2}', '{t,t}', '{s,s}', '{a,a}', "
                + "ARRAY['{\"v\": 1}']::jsonb[], '{x,y}')",
            "SELECT inbox.send_ragged('{r1,r2}', '{t}', NULL, NULL, NULL, NULL)",
            "SELECT inbox.send_ragged('{r1}', NULL, NULL, NULL, NULL, '{x,y}')",
            "SELECT inbox.send_ragged(NULL, '{t}', NULL, NULL, NULL, NULL)")) {
      assertThatThrownBy(() -> sql(call))
          .hasRootCauseInstanceOf(PSQLException.class)
          .rootCause()
          .satisfies(e -> assertThat(((PSQLException) e).getSQLState()).isEqualTo("22023"))
          .hasMessageContaining("one element per event id");
    }
    assertThat(count("SELECT count(*) FROM inbox.ragged")).isZero();
    // NULL stands for an array of NULLs.
    assertThat(count("SELECT inbox.send_ragged('{r1,r2}', NULL, NULL, NULL, NULL, NULL)"))
        .isEqualTo(2);
    assertThat(count("SELECT inbox.send_ragged(NULL, NULL, NULL, NULL, NULL, NULL)")).isZero();
  }

  @Test
  void a_batch_keeps_every_character_and_tells_null_from_the_text_null() {
    PostgresInbox inbox = manager.createInbox("chars");
    String odd = "q\"uote b\\ack {br,ace} 'tick' \u00e9\u4e2d\ud83d\ude00 tab\t";
    List<NewMessage> batch =
        List.of(
            new NewMessage(odd, "NULL", "", "{a,b}", "{\"s\":\"" + "\\\"x\\\\\"}", null),
            new NewMessage("NULL", null, null, null, null, "NULL"));
    assertThat(inbox.sendAll(batch)).isEqualTo(2);
    assertThat(
            strings(
                "SELECT concat_ws('|', event_id, coalesce(event_type, '<null>'),"
                    + " coalesce(source, '<null>'), coalesce(aggregate_id, '<null>'),"
                    + " coalesce(payload ->> 's', payload::text, '<null>'),"
                    + " coalesce(trace_id, '<null>')) FROM inbox.chars ORDER BY seq"))
        .containsExactly(
            odd + "|NULL||{a,b}|\"x\\|<null>", "NULL|<null>|<null>|<null>|<null>|NULL");
  }

  @Test
  void a_violation_of_another_unique_index_is_an_error_and_inserts_nothing() {
    PostgresInbox inbox = manager.createInbox("other_unique");
    sql("CREATE UNIQUE INDEX other_unique_trace ON inbox.other_unique (trace_id)");
    List<NewMessage> batch =
        List.of(
            new NewMessage("a", "t", "s", "agg", null, "trace-1"),
            new NewMessage("b", "t", "s", "agg", null, "trace-1"));
    assertThatThrownBy(() -> inbox.sendAll(batch)).isInstanceOf(InboxException.class);
    assertThat(count("SELECT count(*) FROM inbox.other_unique")).isZero();
  }

  @Test
  void concurrent_batches_of_the_same_ids_in_opposite_orders_never_deadlock() throws Exception {
    PostgresInbox inbox = manager.createInbox("opposite");
    int rounds = 20;
    int size = 500;
    CyclicBarrier together = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (boolean reversed : new boolean[] {false, true}) {
        results.add(
            pool.submit(
                () -> {
                  int inserted = 0;
                  for (int round = 0; round < rounds; round++) {
                    List<NewMessage> batch =
                        new ArrayList<>(messages("r" + round + "-", size, "t"));
                    if (reversed) {
                      Collections.reverse(batch);
                    }
                    together.await(60, TimeUnit.SECONDS); // both statements run at the same time
                    try {
                      inserted += inbox.sendAll(batch);
                    } catch (RuntimeException e) {
                      together.reset(); // the other writer stops waiting for this one
                      throw e;
                    }
                  }
                  return inserted;
                }));
      }
      int total = 0;
      for (Future<Integer> f : results) {
        total += f.get(120, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(rounds * size);
    } finally {
      pool.shutdownNow();
    }
    assertThat(count("SELECT count(*) FROM inbox.opposite")).isEqualTo(rounds * size);
  }

  @Test
  void sixteen_concurrent_writers_of_the_same_ids_give_one_row_each_and_no_error()
      throws Exception {
    PostgresInbox inbox = manager.createInbox("concurrent");
    List<NewMessage> batch = messages("c", 300, "t");
    int writers = 16;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        List<NewMessage> mine = new ArrayList<>(batch);
        java.util.Collections.shuffle(mine, new java.util.Random(w));
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  int inserted = 0;
                  // Half in one batch, the rest one by one: both paths race on the same keys.
                  inserted += inbox.sendAll(mine.subList(0, 280));
                  for (NewMessage m : mine.subList(280, 300)) {
                    inserted += inbox.send(m) ? 1 : 0;
                  }
                  return inserted;
                }));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> f : results) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(300);
    } finally {
      pool.shutdownNow();
    }
    assertThat(count("SELECT count(*) FROM inbox.concurrent")).isEqualTo(300);
    assertThat(count("SELECT count(DISTINCT event_id) FROM inbox.concurrent")).isEqualTo(300);
  }

  @Test
  void views_follow_inserts_failures_and_processing() {
    PostgresInbox inbox =
        manager.createInbox("views", InboxOptions.builder().maxRetries(2).build());
    inbox.sendAll(
        List.of(
            NewMessage.of("a1", "alpha", "x", "{\"k\":1}"),
            NewMessage.of("a2", "alpha", "x", null),
            NewMessage.of("b1", "beta", "y", "[]")));
    assertThat(inbox.pending(10))
        .extracting(InboxMessage::eventId)
        .containsExactly("a1", "a2", "b1");
    assertThat(inbox.pending(10).get(0).payload()).isEqualTo("{\"k\": 1}");
    assertThat(inbox.deadLetters(10)).isEmpty();

    // processed: leaves _pending; a failure that is not the last stays pending with its error
    assertThat(inbox.markProcessed("a1")).isTrue();
    assertThat(inbox.markProcessed("a1")).isFalse();
    assertThat(inbox.markFailed("a2", "boom")).isEqualTo(MarkFailedResult.RETRY);
    assertThat(inbox.pending(10)).extracting(InboxMessage::eventId).containsExactly("a2", "b1");
    assertThat(inbox.pending(10).get(0).error()).isEqualTo("boom");
    assertThat(inbox.pending(10).get(0).retryCount()).isEqualTo(1);

    // the second failure of max_retries = 2 moves it to the DLQ
    assertThat(inbox.markFailed("a2", "boom again")).isEqualTo(MarkFailedResult.DEAD);
    assertThat(inbox.markFailed("a2", "after death")).isEqualTo(MarkFailedResult.UNCHANGED);
    assertThat(inbox.pending(10)).extracting(InboxMessage::eventId).containsExactly("b1");
    assertThat(inbox.deadLetters(10))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.eventId()).isEqualTo("a2");
              assertThat(m.error()).isEqualTo("boom again");
              assertThat(m.retryCount()).isEqualTo(2);
            });
    assertThat(strings("SELECT event_id FROM inbox.views_dlq")).containsExactly("a2");

    assertThat(inbox.stats())
        .containsExactlyInAnyOrder(
            new EventTypeStats("alpha", 0, 1, 1, 2), new EventTypeStats("beta", 1, 0, 0, 1));
  }

  @Test
  void sending_in_the_callers_transaction_commits_or_rolls_back_with_it() throws Exception {
    PostgresInbox inbox = manager.createInbox("in_tx");
    jdbi.useHandle(
        h -> {
          h.begin();
          assertThat(inbox.send(h, NewMessage.of("rolled-back", "t", "a", "{}"))).isTrue();
          assertThat(inbox.sendAll(h, messages("rb", 3, "t"))).isEqualTo(3);
          h.rollback();
          h.begin();
          inbox.send(h, NewMessage.of("committed-handle", "t", "a", "{}"));
          h.commit();
        });
    try (Connection c = database.connect()) {
      c.setAutoCommit(false);
      inbox.send(c, NewMessage.of("committed-connection", "t", "a", "{}"));
      inbox.sendAll(c, messages("conn", 2, "t"));
      assertThat(count("SELECT count(*) FROM inbox.in_tx"))
          .as("not visible before commit")
          .isEqualTo(1);
      c.commit();
    }
    assertThat(strings("SELECT event_id FROM inbox.in_tx ORDER BY event_id"))
        .containsExactly("committed-connection", "committed-handle", "conn0", "conn1");
  }

  @Test
  void a_payload_that_is_not_json_is_an_invalid_argument() {
    PostgresInbox inbox = manager.createInbox("bad_json");
    assertThatThrownBy(() -> inbox.send(NewMessage.of("x", "t", "a", "{not json")))
        .isInstanceOf(InvalidInboxArgumentException.class)
        .satisfies(
            e -> assertThat(((InvalidInboxArgumentException) e).inbox()).contains("bad_json"));
  }

  @Test
  void one_notification_per_insert_statement_on_the_inbox_channel() throws Exception {
    PostgresInbox inbox = manager.createInbox("notified");
    try (Connection listener = database.connect()) {
      listener.createStatement().execute("LISTEN inbox_notified");
      inbox.sendAll(messages("n", 50, "t"));
      org.postgresql.PGConnection pg = listener.unwrap(org.postgresql.PGConnection.class);
      org.postgresql.PGNotification[] got = pg.getNotifications(10_000);
      assertThat(got).hasSize(1);
      assertThat(got[0].getName()).isEqualTo("inbox_notified");
      assertThat(got[0].getParameter()).isEqualTo("notified");
    }
  }
}
