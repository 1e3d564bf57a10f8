package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker's byte budget per batch (WorkerOptions.maxBatchBytes) and messages too big for the
 * heap: batches keep to the budget, and in a JVM with a 64 MB heap the budget lets the worker drain
 * payloads that together would not fit, while a single payload that never fits is charged until it
 * is a dead letter and the messages behind it flow.
 */
class BoundedMemoryTest extends WorkerTestSupport {

  private static final long MB = 1024 * 1024;

  @TempDir Path dir;

  /** Messages whose payloads are {@code chunks} random md5 hex strings (32 bytes each). */
  private static void insertBig(String inbox, String prefix, int count, int chunks) {
    execute(
        "INSERT INTO inbox."
            + inbox
            + " (event_id, event_type, payload) SELECT '"
            + prefix
            + "-' || i, 'big', jsonb_build_object('d', (SELECT string_agg(md5(random()::text || j), '')"
            + " FROM generate_series(1, "
            + chunks
            + ") j)) FROM generate_series(1, "
            + count
            + ") i");
  }

  private static long storedSize(String inbox, String eventId) {
    return count(
        "SELECT pg_column_size(payload) FROM inbox."
            + inbox
            + " WHERE event_id = '"
            + eventId
            + "'");
  }

  @Test
  void batches_hold_at_most_the_byte_budget_and_a_bigger_message_goes_alone() {
    String inbox = newInbox("budget");
    insertBig(inbox, "m", 20, 30); // ~1 KB each
    insertBig(inbox, "huge", 1, 300); // ~10 KB
    long one = storedSize(inbox, "m-1");
    List<List<String>> batches = new CopyOnWriteArrayList<>();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(), options(inbox, true).batchSize(10).maxBatchBytes(3 * one).build())
                .batchHandler(
                    (batch, tx) -> {
                      List<String> ids = new ArrayList<>();
                      for (InboxMessage m : batch) {
                        ids.add(m.eventId());
                      }
                      batches.add(ids);
                      return BatchResult.allProcessed();
                    })
                .build());
    worker.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL") == 0);
    assertThat(batches).allSatisfy(b -> assertThat(b).hasSizeLessThanOrEqualTo(3));
    assertThat(batches).anySatisfy(b -> assertThat(b).hasSize(3));
    assertThat(batches).contains(List.of("huge-1"));
  }

  private Process smallHeapWorker(String inbox, int batchSize, String maxBytes, Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx64m");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SmallHeapWorkerMain.class.getName());
    command.add(DB.jdbcUrl());
    command.add(DB.user() == null ? "" : DB.user());
    command.add(DB.password() == null ? "" : DB.password());
    command.add(inbox);
    command.add(Integer.toString(batchSize));
    command.add(maxBytes);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private String runToTheEnd(String inbox, int batchSize, String maxBytes) throws Exception {
    Path log = dir.resolve(inbox + ".log");
    Process p = smallHeapWorker(inbox, batchSize, maxBytes, log);
    try {
      assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("the worker process ended").isTrue();
      String output = Files.readString(log);
      assertThat(p.exitValue()).as(output.substring(Math.max(0, output.length() - 2000))).isZero();
      assertThat(output).contains("DRAINED");
      return output;
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void with_the_byte_budget_a_64_mb_heap_drains_payloads_that_together_overflow_it()
      throws Exception {
    String inbox = newInbox("small_heap");
    insertBig(inbox, "big", 10, 196_608); // 10 x 6 MiB
    String output = runToTheEnd(inbox, 10, Long.toString(8 * MB));
    assertThat(output).doesNotContainIgnoringCase("out of memory");
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE processed_at IS NOT NULL AND retry_count = 0"))
        .isEqualTo(10);
  }

  /** The test above can fail: without the budget the same batch does not fit in the heap. */
  @Test
  void without_the_byte_budget_the_same_batch_runs_out_of_memory() throws Exception {
    String inbox = newInbox("no_budget");
    insertBig(inbox, "big", 10, 196_608);
    String output = runToTheEnd(inbox, 10, "none");
    assertThat(output).contains("out of memory reading a batch of up to 10 messages");
  }

  @Test
  void a_payload_that_never_fits_in_the_heap_ends_in_the_dlq_and_the_messages_behind_it_flow()
      throws Exception {
    String inbox = newInbox("never_fits", 2);
    insertBig(inbox, "huge", 1, 1_310_720); // 40 MiB
    insert(inbox, "small", 0, 5, 5);
    String output = runToTheEnd(inbox, 10, Long.toString(16 * MB));
    assertThat(output).contains("does not fit in memory");
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + "_dlq WHERE event_id = 'huge-1' AND error LIKE 'out of memory reading the message (%'"))
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " WHERE event_id LIKE 'small-%' AND processed_at IS NOT NULL"))
        .isEqualTo(5);
  }
}
