package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many workers, many threads, one inbox: every message handled once, none lost. With a zero batch
 * timeout notifications go straight to the processors; with a timeout the workers count, and a
 * batch dispatched after a full one is rolled back when it comes back short.
 */
class ExactlyOnceTest extends WorkerTestSupport {

  @ParameterizedTest(name = "listen={0}, batchTimeout={1} ms")
  @CsvSource({"true, 0", "false, 0", "true, 50", "false, 50"})
  void ten_thousand_messages_over_four_workers_of_two_threads_are_each_handled_exactly_once(
      boolean listen, long batchTimeoutMillis) {
    String inbox = newInbox("once");
    List<InboxWorker> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      String name = "w" + w;
      workers.add(
          track(
              PostgresInboxWorker.builder(
                      dataSource(),
                      options(inbox, listen)
                          .concurrency(2)
                          .claimAhead(w % 2 == 1) // half of them claim ahead
                          .batchSize(100)
                          .batchTimeout(Duration.ofMillis(batchTimeoutMillis))
                          .build())
                  .handler(recording(inbox, name))
                  .build()));
    }
    workers.forEach(InboxWorker::start);
    // Producers keep inserting while the workers consume: small statements and large ones.
    for (int i = 0; i < 10_000; ) {
      int n = ThreadLocalRandom.current().nextInt(1, 400);
      n = Math.min(n, 10_000 - i);
      insert(inbox, "m", i, n, 97);
      i += n;
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count("SELECT count(*) FROM " + inbox + "_handled") == 10_000);
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NULL"))
        .isZero();
    // The PK of _handled makes a second handling fail, which would show as a retry: there is none.
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
  }
}
