package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.ClaimPermits;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerListener;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The claim-permit hook: a worker claims no more than it was granted and gives back the rest. */
class ClaimPermitsTest extends WorkerTestSupport {

  /** A budget of permits, handed out up to 4 at a time, with everything it granted and got back. */
  static final class Budget implements ClaimPermits {
    final Semaphore available = new Semaphore(0);
    final AtomicInteger granted = new AtomicInteger();
    final AtomicInteger returned = new AtomicInteger();
    final AtomicInteger waiting = new AtomicInteger();

    @Override
    public int acquire(int max, Duration wait) throws InterruptedException {
      waiting.incrementAndGet();
      try {
        if (!available.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
          return 0;
        }
      } finally {
        waiting.decrementAndGet();
      }
      int more = Math.min(Math.min(max, 4) - 1, available.availablePermits());
      int n = 1 + (more > 0 && available.tryAcquire(more) ? more : 0);
      granted.addAndGet(n);
      return n;
    }

    @Override
    public void release(int unused) {
      assertThat(unused).isPositive();
      returned.addAndGet(unused);
      available.release(unused);
    }

    int used() {
      return granted.get() - returned.get();
    }
  }

  private static long processed(String inbox) {
    return count("SELECT count(*) FROM inbox." + inbox + " WHERE processed_at IS NOT NULL");
  }

  @Test
  void a_worker_claims_only_what_it_was_granted_and_gives_back_what_it_did_not_use() {
    String inbox = newInbox("permits");
    Budget budget = new Budget();
    List<Integer> batches = new CopyOnWriteArrayList<>();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(
                    dataSource(), options(inbox, true).batchSize(10).concurrency(2).build())
                .claimPermits(budget)
                .listener(
                    new WorkerListener() {
                      @Override
                      public void onDispatch(int count, DispatchReason reason) {
                        batches.add(count);
                      }
                    })
                .handler((m, tx) -> Outcome.processed())
                .build());
    insert(inbox, "m", 0, 25, 25);
    worker.start();
    budget.available.release(10);
    await().atMost(Duration.ofSeconds(20)).until(() -> processed(inbox) == 10);
    // The budget is spent: the worker waits for permits and claims nothing more.
    await().atMost(Duration.ofSeconds(20)).until(() -> budget.waiting.get() > 0);
    assertThat(processed(inbox)).isEqualTo(10);
    budget.available.release(100);
    await().atMost(Duration.ofSeconds(20)).until(() -> processed(inbox) == 25);
    await().atMost(Duration.ofSeconds(20)).until(() -> budget.used() == 25);
    assertThat(batches).allSatisfy(n -> assertThat(n).isBetween(1, 4));
    assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isEqualTo(25);
    assertThat(budget.returned.get()).isPositive(); // claims that found fewer gave the rest back
  }

  @Test
  void a_worker_waiting_for_permits_stops_promptly() {
    String inbox = newInbox("permitstop");
    Budget budget = new Budget();
    InboxWorker worker =
        track(
            PostgresInboxWorker.builder(dataSource(), options(inbox, true).build())
                .claimPermits(budget)
                .handler((m, tx) -> Outcome.processed())
                .build());
    insert(inbox, "m", 0, 5, 5);
    worker.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> budget.waiting.get() > 0);
    worker.stop();
    assertThat(worker.isRunning()).isFalse();
    assertThat(processed(inbox)).isZero();
    assertThat(count("SELECT count(*) FROM inbox." + inbox + " WHERE retry_count > 0")).isZero();
  }
}
