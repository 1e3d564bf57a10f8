import java.sql.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

public class Bench {
  static final String PAYLOAD = "{\"order\":\"ORD-000000\",\"amount\":4999,\"currency\":\"EUR\",\"customer\":\"C-12345\",\"note\":\"abcdefghij\"}";
  static String url(String db) { return "jdbc:postgresql://127.0.0.1:" + System.getenv().getOrDefault("PGPORT","54399") + "/" + db + "?user=postgres"; }

  public static void main(String[] a) throws Exception {
    String mode = a[0], db = a[1], name = a[2];
    int batch = Integer.parseInt(a[3]), threads = Integer.parseInt(a[4]), total = Integer.parseInt(a[5]);
    String sql = mode.equals("produce")
      ? System.getenv().getOrDefault("INSERT_SQL", "INSERT INTO inbox." + name + " (event_id, event_type, source, aggregate_id, payload, trace_id) SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::text[]) AS m (event_id, event_type, source, aggregate_id, payload, trace_id) ORDER BY m.event_id COLLATE \"C\" ON CONFLICT (event_id) DO NOTHING")
      : "SELECT * FROM inbox.claim_" + name + "(?, ?::int[])";
    String prefix = Long.toString(System.nanoTime(), 36) + "-";
    AtomicLong done = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> fs = new ArrayList<>();
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    for (int t = 0; t < threads; t++) {
      final int tid = t;
      fs.add(pool.submit(() -> {
        try (Connection c = DriverManager.getConnection(url(db)); PreparedStatement ps = c.prepareStatement(sql)) {
          if (mode.equals("produce")) {
            int per = total / threads;
            start.await();
            for (int n = 0; n < per; n += batch) {
              String[] ids = new String[batch], ty = new String[batch], src = new String[batch], ag = new String[batch], pl = new String[batch], tr = new String[batch];
              for (int i = 0; i < batch; i++) { long k = (long) tid * per + n + i; ids[i] = prefix + k; ty[i] = k % 10 == 0 ? "order.cancelled" : "order.placed"; src[i] = "bench"; ag[i] = "agg-" + (k % 1000); pl[i] = PAYLOAD; }
              String[][] cols = {ids, ty, src, ag, pl, tr};
              for (int i = 0; i < 6; i++) ps.setArray(i + 1, c.createArrayOf("text", cols[i]));
              done.addAndGet(ps.executeUpdate());
            }
          } else {
            c.setAutoCommit(false);
            ps.setInt(1, batch); ps.setNull(2, Types.ARRAY);
            start.await();
            while (true) {
              int n = 0;
              try (ResultSet r = ps.executeQuery()) { while (r.next()) { r.getString(1); r.getString(5); n++; } }
              c.commit();
              if (n == 0) break;
              done.addAndGet(n);
            }
          }
        }
        return null;
      }));
    }
    start.await();
    long t0 = System.nanoTime();
    for (Future<?> f : fs) f.get();
    double s = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    System.out.printf(Locale.ROOT, "%s batch=%d threads=%d rows=%d secs=%.3f rate=%.0f/s%n", mode, batch, threads, done.get(), s, done.get() / s);
  }
}
