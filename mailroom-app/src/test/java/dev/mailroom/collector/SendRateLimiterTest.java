package dev.mailroom.collector;

import static org.assertj.core.api.Assertions.assertThat;

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
}
