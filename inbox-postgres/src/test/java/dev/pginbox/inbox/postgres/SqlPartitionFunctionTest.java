package dev.pginbox.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Partitioning;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The partition function is the same in SQL and Java, total, and moves little when N grows. */
class SqlPartitionFunctionTest extends InboxTestSupport {

  private static PostgresInbox inbox;

  @BeforeAll
  static void createInbox() {
    inbox = manager.createInbox("parts");
  }

  /**
   * 1000 ids: ASCII, random Unicode (incl. supplementary characters), '' and null, of 0 to 40
   * characters (the hash takes 12 bytes at a time, then 0 to 11 more: every remainder occurs).
   */
  private static List<String> ids() {
    Random random = new Random(4242);
    List<String> ids = new ArrayList<>(List.of("", "order-42", "Zürich-ü-日本", "\uD83D\uDE00emoji"));
    ids.add(null);
    while (ids.size() < 1000) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(41);
      for (int i = 0; i < length; i++) {
        int cp =
            random.nextInt(4) == 0
                ? 0x80 + random.nextInt(0x2FFFF - 0x80)
                : 0x20 + random.nextInt(0x5F);
        if (Character.isSurrogate((char) cp) || !Character.isDefined(cp)) {
          cp = 'x';
        }
        b.appendCodePoint(cp);
      }
      ids.add(b.toString());
    }
    return ids;
  }

  @Test
  void vectors_of_our_function_hold_in_java_and_sql() {
    // (aggregate id, workers, bucket, owner): regression vectors for hashtext buckets + md5
    // rendezvous. The buckets are PostgreSQL's, so they hold on the server whatever Java computes.
    Object[][] vectors = {
      {"order-42", 4, 832, 3},
      {"user-99", 8, 984, 4},
      {"agg-123", 3, 1004, 2},
      {"", 3, 621, 1},
      {"ORD-123", 4, 251, 0},
      {null, 4, 621, 1},
      {"Zürich-ü-日本", 5, 149, 3},
      {"an-aggregate-id-of-37-bytes-000000001", 6, 205, 0}
    };
    for (Object[] v : vectors) {
      String id = (String) v[0];
      int n = (Integer) v[1];
      assertThat(Partitioning.bucketOf(id)).as("java bucket of %s", id).isEqualTo(v[2]);
      assertThat(Partitioning.ownerOf(Partitioning.bucketOf(id), n))
          .as("java owner of %s", id)
          .isEqualTo(v[3]);
      assertThat(inbox.isMyPartition(id, (Integer) v[3], n)).as("sql owner of %s", id).isTrue();
      assertThat(count("SELECT inbox.inbox_bucket(?)", id)).isEqualTo(((Integer) v[2]).longValue());
    }
  }

  @Test
  void java_and_sql_agree_for_1000_random_ids_including_unicode_empty_and_null() {
    List<String> ids = ids();
    for (int n : new int[] {1, 3, 7}) {
      List<String> sql =
          jdbi.withHandle(
              h ->
                  h.createQuery(
                          "SELECT inbox.inbox_bucket(id) || ':' || inbox.inbox_bucket_owner(inbox.inbox_bucket(id), :n)"
                              + " FROM unnest(CAST(:ids AS text[])) WITH ORDINALITY AS t(id, i) ORDER BY i")
                      .bindArray("ids", String.class, ids)
                      .bind("n", n)
                      .mapTo(String.class)
                      .list());
      List<String> java =
          ids.stream()
              .map(
                  id ->
                      Partitioning.bucketOf(id)
                          + ":"
                          + Partitioning.ownerOf(Partitioning.bucketOf(id), n))
              .toList();
      assertThat(sql).as("n = %d", n).isEqualTo(java);
    }
    // and the SQL API function itself, for a sample of ids and every worker
    for (String id : ids.subList(0, 30)) {
      for (int w = 0; w < 4; w++) {
        assertThat(inbox.isMyPartition(id, w, 4)).isEqualTo(Partitioning.isMyPartition(id, w, 4));
      }
    }
  }

  @Test
  void every_aggregate_is_owned_by_exactly_one_worker() {
    List<String> ids = ids();
    for (int n : new int[] {1, 2, 5, 16}) {
      List<Long> owners =
          jdbi.withHandle(
              h ->
                  h.createQuery(
                          "SELECT count(*) FILTER (WHERE inbox.inbox_is_my_partition('parts', id, w, :n))"
                              + " FROM unnest(CAST(:ids AS text[])) WITH ORDINALITY AS t(id, i), generate_series(0, :n - 1) w"
                              + " GROUP BY i")
                      .bindArray("ids", String.class, ids)
                      .bind("n", n)
                      .mapTo(Long.class)
                      .list());
      assertThat(owners).as("n = %d", n).hasSize(ids.size()).containsOnly(1L);
      // the buckets of the workers partition 0..1023
      int[] all =
          java.util.stream.IntStream.range(0, n)
              .flatMap(w -> Arrays.stream(Partitioning.bucketsOf(w, n)))
              .sorted()
              .toArray();
      assertThat(all)
          .isEqualTo(java.util.stream.IntStream.range(0, Partitioning.BUCKETS).toArray());
    }
  }

  @Test
  void
      growing_from_n_to_n_plus_one_workers_moves_about_one_in_n_plus_one_buckets_all_to_the_new_worker() {
    for (int n = 1; n <= 16; n++) {
      int moved = 0;
      for (int b = 0; b < Partitioning.BUCKETS; b++) {
        int before = Partitioning.ownerOf(b, n);
        int after = Partitioning.ownerOf(b, n + 1);
        if (before != after) {
          moved++;
          assertThat(after).as("a moved bucket goes to the new worker").isEqualTo(n);
        }
      }
      double expected = Partitioning.BUCKETS / (double) (n + 1);
      // Deterministic; the tolerance only says "about 1/(N+1)", far from mod-N's "most of them".
      assertThat((double) moved).as("n = %d", n).isBetween(expected * 0.6, expected * 1.4);
    }
    // SQL agrees bucket by bucket for one growth step
    List<Integer> sqlMoved =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT b FROM generate_series(0, 1023) b"
                            + " WHERE inbox.inbox_bucket_owner(b, 4) <> inbox.inbox_bucket_owner(b, 5) ORDER BY b")
                    .mapTo(Integer.class)
                    .list());
    List<Integer> javaMoved =
        java.util.stream.IntStream.range(0, Partitioning.BUCKETS)
            .filter(b -> Partitioning.ownerOf(b, 4) != Partitioning.ownerOf(b, 5))
            .boxed()
            .toList();
    assertThat(sqlMoved).isEqualTo(javaMoved);
  }

  /**
   * send_<name> and the derive trigger compute the bucket of every message inserted: the function
   * must be inlined into their statements (a SET clause would stop that and cost a function call
   * per row), and a NULL id must not cost a hash (most messages of a plain inbox have no
   * aggregate).
   */
  @Test
  void the_bucket_function_is_inlined_and_hashes_no_null_id() {
    String plan =
        String.join(
            "\n",
            strings(
                "EXPLAIN (VERBOSE, COSTS OFF) SELECT inbox.inbox_bucket(t.id)"
                    + " FROM (VALUES ('order-42'), (NULL)) t (id)"));
    assertThat(plan).doesNotContain("inbox_bucket").contains("IS NULL) THEN 621");
    assertThat(count("SELECT pg_catalog.hashtext('') & 1023")).isEqualTo(621);
  }

  /**
   * Rows stored before the bucket's hash changed (md5 until 2026-11-27) keep their bucket, so one
   * aggregate's messages can sit in buckets of different workers. Order still holds: a partitioned
   * claim never takes a message while an earlier one of its aggregate waits in another worker's
   * bucket, whichever phase of the ordered claim looks.
   */
  @Test
  void an_aggregate_split_across_two_workers_buckets_is_still_handled_in_order() {
    PostgresInbox split = manager.createInbox("split");
    manager.enableOrdering("split");
    split.sendAll(
        List.of(
            NewMessage.of("first", "t", "agg", null),
            NewMessage.of("second", "t", "agg", null),
            NewMessage.of("third", "t", "agg", null)));
    int owner = Partitioning.ownerOf(Partitioning.bucketOf("agg"), 2);
    int other = 1 - owner;
    sql(
        "UPDATE inbox.split SET bucket = ? WHERE event_id = 'first'",
        Partitioning.bucketsOf(other, 2)[0]);
    String claimOf =
        "SELECT event_id FROM inbox.claim_split(?, inbox.inbox_partition_buckets(?, 2))";
    // The aggregate's owner sees 'second' and 'third' but may take neither: not a claim of 1,
    // whose window is crowded by blocked messages so that it also enumerates the heads (phase
    // 2), nor a claim of 10, which stays with its window (phase 1).
    assertThat(strings(claimOf, 1, owner)).isEmpty();
    assertThat(strings(claimOf, 10, owner)).isEmpty();
    assertThat(strings(claimOf, 10, other)).containsExactly("first");
    assertThat(strings(claimOf, 10, owner)).containsExactly("second");
    assertThat(strings(claimOf, 10, owner)).containsExactly("third");
  }

  @Test
  void the_bucket_mask_has_the_bits_of_exactly_the_given_buckets() {
    assertThat(
            strings(
                "SELECT string_agg(b::text, ',' ORDER BY b) FROM generate_series(0, 1023) b "
                    + "WHERE get_bit(inbox.inbox_bucket_mask(ARRAY[0, 5, 1023, 5]), b) = 1"))
        .containsExactly("0,5,1023");
    assertThat(
            count(
                "SELECT length(inbox.inbox_bucket_mask('{}'::int[])) - "
                    + "length(replace(inbox.inbox_bucket_mask('{}'::int[])::text, '0', ''))"))
        .isEqualTo(1024);
    assertThat(strings("SELECT inbox.inbox_bucket_mask(NULL)::text")).containsOnlyNulls();
    // The mask of a worker's partition selects exactly the buckets inbox_is_my_partition gives it.
    assertThat(
            count(
                "SELECT count(*) FROM generate_series(0, 1023) b "
                    + "WHERE (get_bit(inbox.inbox_bucket_mask(inbox.inbox_partition_buckets(1, 3)), b) = 1) "
                    + "<> (inbox.inbox_bucket_owner(b, 3) = 1)"))
        .isZero();
  }
}
