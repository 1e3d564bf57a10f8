package dev.pginbox.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Scenarios 4 and 6: the real collector jar against the benchmark database. Throughput: accounts
 * inserted in one transaction (each makes an activation token, hence one inbox message), timed from
 * that commit to the last record on the collector's stdout, by one running collector (its first,
 * cold drain reported apart). Latency: single account inserts at batch limit 1, from commit to the
 * line. Memory: the collector's peak RSS over all its drains.
 */
final class MailroomScenario {

  static final String SECRET_KEY = "cafebabe".repeat(8);

  static void run(Report report, int runs, double scale, Path jar, List<String> jvmFlags) throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build it with ./mvnw -q package -DskipTests");
    }
    report.section("Mailroom collector: accounts inserted in one transaction -> records on stdout (JVM flags: "
        + (jvmFlags.isEmpty() ? "none" : String.join(" ", jvmFlags)) + ")",
        "| batch limit | MAILROOM_CONCURRENCY | tokens | first drain after start, tokens/s | insert + drain, tokens/s "
            + "| drain after the commit, tokens/s | collector peak RSS |");
    int tokens = (int) (100_000 * scale);
    // {batch limit, MAILROOM_CONCURRENCY, MAILROOM_CLAIM_AHEAD}
    for (int[] config : new int[][] {{10, 1, 0}, {100, 1, 0}, {100, 1, 1}, {100, 2, 0}}) {
      int limit = config[0];
      int concurrency = config[1];
      boolean ahead = config[2] == 1;
      // A database of its own per configuration: rows and autovacuum debt left by the previous
      // configuration's 400,000 sign-ups made later rows slower whatever they measured.
      BenchDatabase db = BenchDatabase.create("mailroom");
      Map<String, String> env = collectorEnvironment(db, jar);
      Measurements rate = new Measurements();
      Measurements drainRate = new Measurements();
      double coldDrainRate = 0;
      env.put("MAILROOM_BATCH_LIMIT", Integer.toString(limit));
      env.put("MAILROOM_BATCH_TIMEOUT", "1000");
      env.put("MAILROOM_CONCURRENCY", Integer.toString(concurrency));
      env.put("MAILROOM_CLAIM_AHEAD", ahead ? "1" : "0");
      // One collector for all runs, as one runs in production: the first drain (run -1) also pays
      // for the JVM's warm-up (JIT compilation took ~2 s of CPU per 100,000 tokens), the others
      // measure the running collector. Its peak RSS covers them all.
      try (CollectorProcess collector = new CollectorProcess(jar, jvmFlags, env, false)) {
        collector.awaitLog("connected", 120);
        for (int run = -1; run < runs; run++) {
          settle(db);
          long start = System.nanoTime();
          insertAccounts(db, "r" + run + "l" + limit + "c" + concurrency + (ahead ? "a" : ""), tokens);
          long committed = System.nanoTime();
          long expected = (long) (run + 2) * tokens;
          while (collector.records() < expected) {
            Thread.sleep(1);
          }
          long end = System.nanoTime();
          // The collector sees no token before the insert commits; the drain rate is its own speed,
          // the first rate also counts the insert (three triggers per account).
          double drain = tokens / ((end - committed) / 1e9);
          if (run < 0) {
            coldDrainRate = drain;
          } else {
            rate.add(tokens / ((end - start) / 1e9));
            drainRate.add(drain);
          }
        }
        report.row(limit, concurrency + (ahead ? ", claiming ahead" : ""), String.format("%,d", tokens), String.format("%,.0f", coldDrainRate), rate.summary(),
            drainRate.summary(), String.format(Locale.ROOT, "%.0f MiB", collector.peakRssMib()));
      }
    }

    report.section("Mailroom collector latency at batch limit 1 (account insert commit -> line read from stdout)",
        "| inserts | p50 | p99 | max |");
    BenchDatabase db = BenchDatabase.create("mailroom");
    Map<String, String> env = collectorEnvironment(db, jar);
    env.put("MAILROOM_BATCH_LIMIT", "1");
    env.put("MAILROOM_BATCH_TIMEOUT", "1000");
    env.put("MAILROOM_CONCURRENCY", "1");
    LatencyRecorder latency = new LatencyRecorder();
    try (CollectorProcess collector = new CollectorProcess(jar, jvmFlags, env, true);
        Connection c = db.dataSource.getConnection();
        PreparedStatement insert = c.prepareStatement("INSERT INTO accounts (email, login) VALUES (?, ?)")) {
      collector.awaitLog("connected", 120);
      // A fresh JVM interprets its first calls: push a few thousand batches of one through the
      // collector's path before measuring, as a running collector would have.
      int warmUp = (int) Math.max(1_000, 5_000 * scale);
      insertAccounts(db, "latwarm", warmUp);
      while (collector.records() < warmUp) {
        Thread.sleep(10);
      }
      int inserts = (int) Math.max(50, 500 * scale);
      for (int i = -50; i < inserts; i++) { // the first 50 warm up
        String email = "lat" + i + "@bench.test";
        insert.setString(1, email);
        insert.setString(2, "lat" + i);
        insert.executeUpdate();
        long committed = System.nanoTime();
        long seen = collector.lineSeen(email).get(30, TimeUnit.SECONDS);
        if (i >= 0) {
          latency.recordNanos(seen - committed);
        }
        Thread.sleep(5);
      }
      report.row(inserts, ms(latency.percentileMillis(50)), ms(latency.percentileMillis(99)), ms(latency.maxMillis()));
    }
  }

  /** The collector's environment for this database, with the mailroom schema installed by the jar. */
  static Map<String, String> collectorEnvironment(BenchDatabase db, Path jar) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATABASE_URL", db.database.jdbcUrl()
        + (db.database.user() == null || db.database.jdbcUrl().contains("user=") ? "" : "?user=" + db.database.user()));
    env.put("MAILROOM_SECRET_KEY", SECRET_KEY);
    install(jar, env);
    return env;
  }

  /**
   * Every run starts from the same state, as pgbench vacuums before it measures: the previous run's
   * dead rows vacuumed, statistics fresh, and no checkpoint pending (without this, one configuration
   * drained at 14,000-35,000 tokens/s from run to run, depending on whether autovacuum or a
   * WAL-triggered checkpoint fell into the drain).
   */
  static void settle(BenchDatabase db) {
    db.execute("VACUUM ANALYZE");
    db.execute("CHECKPOINT");
  }

  private static void install(Path jar, Map<String, String> env) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", jar.toString(), "install").inheritIO();
    builder.environment().putAll(env);
    int exit = builder.start().waitFor();
    if (exit != 0) {
      throw new IllegalStateException("mailroom install exited " + exit);
    }
  }

  static void insertAccounts(BenchDatabase db, String prefix, int count) throws Exception {
    try (Connection c = db.dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute(("INSERT INTO accounts (email, login) SELECT '%1$s' || g || '@bench.test', '%1$s' || g "
          + "FROM generate_series(1, %2$d) g").formatted(prefix, count));
    }
  }

  private static String ms(double millis) {
    return String.format(Locale.ROOT, "%.2f ms", millis);
  }
}
