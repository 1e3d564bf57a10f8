package dev.pginbox.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 16.3: the mailroom as users run it, through the distribution's {@code bin/mailroom} (its
 * own JVM flags), against a database that is up. Start-up: from spawning the process to the first
 * batch on stdout, with 1,000 tokens waiting (a fresh process per run). Memory: peak RSS while
 * draining 100,000 tokens, and RSS when idle (nothing to do for 10 s: before any work, and after
 * the drain). The machine's load average is reported with the results.
 */
final class FootprintScenario {

  private FootprintScenario() {}

  static void run(Report report, int runs, double scale, Path distribution) throws Exception {
    Path launcher = distribution.resolve("bin/mailroom");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException(launcher + " is missing: build it with ./mvnw -q package -DskipTests");
    }
    List<String> command = List.of(launcher.toString());
    report.section("Mailroom distribution (" + launcher + "), load average before: " + LoadAverage.now(),
        "| measure | median (min..max) |");

    BenchDatabase db = BenchDatabase.create("footprint");
    Map<String, String> env = environment(db, distribution);
    Measurements startup = new Measurements();
    Measurements startupCpu = new Measurements();
    for (int run = -1; run < runs; run++) {
      insertAccounts(db, "s" + run, 1_000);
      db.execute("VACUUM ANALYZE");
      long spawned = System.nanoTime();
      try (CollectorProcess collector = new CollectorProcess(command, env, false)) {
        while (collector.records() == 0) {
          Thread.sleep(1);
        }
        long firstBatch = System.nanoTime();
        double cpu = collector.cpuMillis();
        if (run >= 0) { // the first start also warms the page cache
          startup.add((firstBatch - spawned) / 1e6);
          startupCpu.add(cpu);
        }
        while (collector.records() < 1_000) {
          Thread.sleep(5);
        }
      }
    }
    report.row("start to the first batch on stdout, ms", startup.summary());
    report.row("CPU used by then (user + system), ms", startupCpu.summary());

    int tokens = (int) (100_000 * scale);
    Measurements idleBefore = new Measurements();
    Measurements peak = new Measurements();
    Measurements idleAfter = new Measurements();
    Measurements drain = new Measurements();
    for (int run = 0; run < runs; run++) {
      BenchDatabase fresh = BenchDatabase.create("footprint");
      Map<String, String> freshEnv = environment(fresh, distribution);
      try (CollectorProcess collector = new CollectorProcess(command, freshEnv, false)) {
        collector.awaitLog("connected", 120);
        Thread.sleep(10_000);
        idleBefore.add(collector.rssMib());
        insertAccounts(fresh, "d" + run, tokens);
        long committed = System.nanoTime();
        while (collector.records() < tokens) {
          Thread.sleep(5);
        }
        drain.add(tokens / ((System.nanoTime() - committed) / 1e9));
        peak.add(collector.peakRssMib());
        Thread.sleep(10_000);
        idleAfter.add(collector.rssMib());
      }
    }
    report.row("RSS idle after start, MiB", idleBefore.summary());
    report.row(String.format(Locale.ROOT, "peak RSS draining %,d tokens, MiB", tokens), peak.summary());
    report.row("RSS idle 10 s after the drain, MiB", idleAfter.summary());
    report.row("drain after the commit (first drain of a fresh collector), tokens/s", drain.summary());
    report.line("Load average after: " + LoadAverage.now());
  }

  private static Map<String, String> environment(BenchDatabase db, Path distribution) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("MAILROOM_DATABASE_URL", db.database.jdbcUrl()
        + (db.database.user() == null || db.database.jdbcUrl().contains("user=") ? "" : "?user=" + db.database.user()));
    env.put("MAILROOM_SECRET_KEY", MailroomScenario.SECRET_KEY);
    env.put("MAILROOM_BATCH_LIMIT", "100");
    env.put("MAILROOM_BATCH_TIMEOUT", "1000");
    ProcessBuilder install = new ProcessBuilder(distribution.resolve("bin/mailroom").toString(), "install").inheritIO();
    install.environment().putAll(env);
    if (install.start().waitFor() != 0) {
      throw new IllegalStateException("bin/mailroom install failed");
    }
    return env;
  }

  private static void insertAccounts(BenchDatabase db, String prefix, int count) throws Exception {
    try (Connection c = db.dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute(("INSERT INTO accounts (email, login) SELECT '%1$s' || g || '@bench.test', '%1$s' || g "
          + "FROM generate_series(1, %2$d) g").formatted(prefix, count));
    }
  }
}
