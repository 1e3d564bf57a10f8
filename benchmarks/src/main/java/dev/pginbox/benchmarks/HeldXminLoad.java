package dev.pginbox.benchmarks;

import dev.pginbox.inbox.postgres.PostgresInbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The load and the observation of {@link HeldXminScenario} and {@link SoakScenario}: the producer,
 * the sampler, the phases and their report rows ({@link SteadyFlow} runs them).
 */
final class HeldXminLoad {

  static final int AGGREGATES = 1000;

  private HeldXminLoad() {}

  /** One reading of the sampler, at {@code nanos} (System.nanoTime). */
  record Sample(long nanos, long backlog, long deadTuples, long bytes) {}

  /**
   * Sends the messages of its ticks (offset, offset + stride, ...; tick n is due at {@code start}
   * plus n/rate s) until {@code stop} says so, {@code limit} ticks have passed (0: no limit) or
   * {@code capacity} messages are recorded; with {@code committedAt} records message n's commit
   * time (System.nanoTime after send returned). {@code next} is the first of its ticks not sent:
   * with {@code stride} producers, every tick below the least of their {@code next} is sent.
   */
  static void produce(
      PostgresInbox inbox,
      String prefix,
      int rate,
      AtomicLongArray committedAt,
      AtomicLong next,
      int capacity,
      java.util.function.BooleanSupplier stop,
      long limit,
      long start,
      int offset,
      int stride) {
    long interval = 1_000_000_000L / rate;
    next.set(offset);
    for (long tick = offset; !stop.getAsBoolean(); tick += stride) {
      if ((limit > 0 && tick >= limit) || (committedAt != null && tick >= capacity)) {
        return;
      }
      long due = start + tick * interval;
      for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
      inbox.send(Payloads.message(prefix, tick, AGGREGATES));
      if (committedAt != null) {
        committedAt.set((int) tick, System.nanoTime());
      }
      next.set(tick + stride);
    }
  }

  /**
   * One report row for {@code phase}: the messages committed and handled in it per second, the
   * largest backlog sampled, the latency (commit to handler start) of those committed in it, the
   * dead tuples and size of the last sample. Returns how many committed in it were never handled.
   */
  static long reportPhase(
      Report report,
      String label,
      Phase phase,
      AtomicLongArray committedAt,
      AtomicLongArray startedAt,
      int n,
      List<Sample> samples) {
    long committedIn = 0;
    long handledIn = 0;
    long unhandled = 0;
    LatencyRecorder latency = new LatencyRecorder();
    for (int i = 0; i < n; i++) {
      long committed = committedAt.get(i);
      long started = startedAt.get(i);
      if (started != 0 && phase.contains(started)) {
        handledIn++;
      }
      if (phase.contains(committed)) {
        committedIn++;
        if (started == 0) {
          unhandled++;
        } else {
          // A handler may start before the producer has read its own commit: 0.
          latency.recordNanos(started - committed);
        }
      }
    }
    long maxBacklog = 0;
    Sample last = null;
    for (Sample s : samples) {
      if (phase.contains(s.nanos())) {
        maxBacklog = Math.max(maxBacklog, s.backlog());
        last = s;
      }
    }
    report.row(
        label,
        phase.name(),
        String.format(Locale.ROOT, "%,.0f", committedIn / phase.seconds()),
        String.format(Locale.ROOT, "%,.0f", handledIn / phase.seconds()),
        String.format(Locale.ROOT, "%,d", maxBacklog),
        ms(latency.percentileMillis(50)),
        ms(latency.percentileMillis(99)),
        ms(latency.maxMillis())
            + (unhandled > 0 ? String.format(" (%,d never handled)", unhandled) : ""),
        last == null ? "-" : String.format(Locale.ROOT, "%,d", last.deadTuples()),
        last == null ? "-" : String.format(Locale.ROOT, "%.1f", last.bytes() / (1024.0 * 1024.0)));
    return unhandled;
  }

  /**
   * Once a second, on its own connection: the pending backlog, n_dead_tup and the inbox's total
   * size. A failed reading is skipped.
   */
  static Thread startSampler(
      BenchDatabase db, String name, List<Sample> samples, AtomicBoolean stop) {
    String sql =
        ("SELECT (SELECT count(*) FROM inbox.%1$s WHERE processed_at IS NULL), "
                + "(SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'inbox.%1$s'::regclass), "
                + "pg_total_relation_size('inbox.%1$s')")
            .formatted(name);
    Thread t =
        new Thread(
            () -> {
              try (Connection c = db.database.connect();
                  PreparedStatement s = c.prepareStatement(sql)) {
                long next = System.nanoTime();
                while (!stop.get()) {
                  long at = System.nanoTime();
                  try (ResultSet r = s.executeQuery()) {
                    r.next();
                    samples.add(new Sample(at, r.getLong(1), r.getLong(2), r.getLong(3)));
                  } catch (SQLException e) {
                    // skip this reading
                  }
                  next += 1_000_000_000L;
                  for (long left = next - System.nanoTime();
                      left > 0 && !stop.get();
                      left = next - System.nanoTime()) {
                    LockSupport.parkNanos(Math.min(left, 100_000_000L));
                  }
                }
              } catch (SQLException e) {
                System.err.println("held-xmin sampler: " + e);
              }
            },
            "held-xmin-sampler");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** A window of the run, [from, to) in System.nanoTime. */
  record Phase(String name, long from, long to) {
    boolean contains(long nanos) {
      return nanos >= from && nanos < to;
    }

    double seconds() {
      return (to - from) / 1e9;
    }
  }

  static void sleepUntil(long nanos) throws InterruptedException {
    for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  static String ms(double millis) {
    return String.format(Locale.ROOT, millis < 100 ? "%.2f ms" : "%,.0f ms", millis);
  }
}
