package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SendRateLimiterTest {

  private final AtomicLong now = new AtomicLong();
  private final SendRateLimiter limiter = new SendRateLimiter(0.38, 10, now::get, now::addAndGet);

  @Test
  void a_full_burst_goes_at_once_then_the_debt_is_waited_off() throws Exception {
    assertThat(limiter.awaitPermit()).isEqualTo(10);
    limiter.consume(10);
    long before = now.get();
    assertThat(limiter.awaitPermit()).isEqualTo(1);
    // 1 email at 0.38/s takes ~2.63 s to refill
    assertThat(now.get() - before).isBetween(2_600_000_000L, 2_700_000_000L);
  }

  @Test
  void long_run_rate_stays_within_the_budget() throws Exception {
    long sent = 0;
    while (now.get() < 3_600_000_000_000L) { // one simulated hour
      int permits = limiter.awaitPermit();
      int batch = Math.min(permits, 10);
      limiter.consume(batch);
      sent += batch;
    }
    double seconds = now.get() / 1e9;
    assertThat(sent).isLessThanOrEqualTo((long) (10 + 0.38 * seconds) + 1);
    assertThat(sent).isGreaterThan((long) (0.38 * seconds) - 11);
  }

  @Test
  void idle_time_refills_no_more_than_the_burst() throws Exception {
    limiter.consume(10);
    now.addAndGet(3_600_000_000_000L);
    assertThat(limiter.available()).isEqualTo(10.0);
  }

  @Test
  void a_claim_takes_no_more_permits_than_the_budget_holds() throws Exception {
    assertThat(limiter.acquire(4, Duration.ofSeconds(1))).isEqualTo(4);
    assertThat(limiter.acquire(100, Duration.ofSeconds(1))).isEqualTo(6);
    long before = now.get();
    // Empty: the next permit is ~2.63 s away at 0.38/s.
    assertThat(limiter.acquire(100, Duration.ofSeconds(10))).isEqualTo(1);
    assertThat(now.get() - before).isBetween(2_600_000_000L, 2_700_000_000L);
  }

  @Test
  void a_wait_shorter_than_the_next_permit_grants_nothing_and_ends_on_time() throws Exception {
    limiter.acquire(10, Duration.ZERO);
    long before = now.get();
    assertThat(limiter.acquire(10, Duration.ofMillis(500))).isZero();
    assertThat(now.get() - before).isEqualTo(500_000_000L);
  }

  @Test
  void unused_permits_go_back_but_never_above_the_burst() throws Exception {
    assertThat(limiter.acquire(10, Duration.ZERO)).isEqualTo(10);
    limiter.release(7);
    assertThat(limiter.available()).isEqualTo(7.0);
    limiter.release(10);
    assertThat(limiter.available()).isEqualTo(10.0);
  }

  @Test
  void claims_through_permits_stay_within_the_budget_over_an_hour() throws Exception {
    long sent = 0;
    while (now.get() < 3_600_000_000_000L) {
      sent += limiter.acquire(10, Duration.ofSeconds(1));
    }
    double seconds = now.get() / 1e9;
    assertThat(sent).isLessThanOrEqualTo((long) (10 + 0.38 * seconds));
    assertThat(sent).isGreaterThanOrEqualTo((long) (0.38 * seconds));
  }

  @Test
  void under_load_a_claim_waits_for_a_seconds_worth_of_budget_not_for_one_email() throws Exception {
    AtomicLong clock = new AtomicLong();
    SendRateLimiter twenty = new SendRateLimiter(20, 10, clock::get, clock::addAndGet);
    assertThat(twenty.acquire(10, Duration.ZERO)).isEqualTo(10);
    long before = clock.get();
    // 10 emails at 20/s: half a second, then a full batch rather than ten batches of one.
    assertThat(twenty.acquire(10, Duration.ofSeconds(5))).isEqualTo(10);
    assertThat(clock.get() - before).isBetween(499_000_000L, 501_000_000L);
    // A claim that can take only 3 waits for 3, not for 10.
    before = clock.get();
    assertThat(twenty.acquire(3, Duration.ofSeconds(5))).isEqualTo(3);
    assertThat(clock.get() - before).isBetween(149_000_000L, 151_000_000L);
  }
}
