package dev.pginbox.benchmarks;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The mailroom collector delivering by SMTP (MAILROOM_DELIVERY=smtp) on 127.0.0.1: emails per
 * second at batch limit 100 with the connections kept between batches, the send-rate budget's
 * accuracy, and the collector's peak RSS while delivering. The SMTP server is a GreenMail in this
 * JVM, or aiosmtpd (Debian python3-aiosmtpd, its discarding handler) in a process of its own:
 * GreenMail parses and stores every email and spends about a millisecond of CPU on each, more than
 * the collector, so a second, leaner server shows what the collector does when the server is not
 * the bottleneck.
 */
final class DeliveryScenario {

  /** MAILROOM_CONCURRENCY x MAILROOM_SMTP_CONNECTIONS: one, then several connections per batch. */
  private static final int[][] CONFIGURATIONS = {{1, 1}, {1, 4}, {2, 4}};

  private DeliveryScenario() {}

  /** Where the emails go, and how the harness knows they arrived. */
  private interface Sink extends AutoCloseable {
    int port();

    String name();

    /** Forgets the emails received so far. */
    void reset() throws Exception;

    /** Waits until {@code db}'s collector has delivered {@code total} emails since the reset. */
    void await(BenchDatabase db, int total) throws Exception;

    @Override
    void close();
  }

  static void run(
      Report report, int runs, double scale, Path jar, List<String> jvmFlags, boolean throughput)
      throws Exception {
    run(report, runs, scale, jar, jvmFlags, throughput, true, false);
  }

  static void run(
      Report report,
      int runs,
      double scale,
      Path jar,
      List<String> jvmFlags,
      boolean throughput,
      boolean budget,
      boolean aiosmtpd)
      throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build it with ./mvnw -q package -DskipTests");
    }
    try (Sink sink = aiosmtpd ? aiosmtpd() : greenMail()) {
      if (throughput) {
        throughput(report, runs, scale, jar, jvmFlags, sink);
      }
      if (budget) {
        budget(report, scale, jar, jvmFlags, sink);
      }
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static Sink greenMail() throws Exception {
    // GreenMail logs every recipient's mailbox it creates at INFO: measure the collector, not that.
    System.setProperty("org.slf4j.simpleLogger.log.com.icegreen", "warn");
    int port = freePort();
    GreenMail smtp = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
    smtp.start();
    return new Sink() {
      public int port() {
        return port;
      }

      public String name() {
        return "GreenMail (in the harness's JVM)";
      }

      public void reset() throws Exception {
        smtp.purgeEmailFromAllMailboxes();
      }

      public void await(BenchDatabase db, int total) {
        if (!smtp.waitForIncomingEmail(600_000, total)) {
          throw new IllegalStateException(
              "only " + smtp.getReceivedMessages().length + " of " + total + " emails arrived");
        }
      }

      public void close() {
        smtp.stop();
      }
    };
  }

  private static Sink aiosmtpd() throws Exception {
    int port = freePort();
    Process server =
        new ProcessBuilder(
                "/usr/bin/python3",
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                "127.0.0.1:" + port,
                "-c",
                "aiosmtpd.handlers.Sink")
            .inheritIO()
            .start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
        break;
      } catch (java.io.IOException e) {
        if (!server.isAlive() || System.nanoTime() > deadline) {
          server.destroy();
          throw new IllegalStateException(
              "aiosmtpd did not start: install the Debian package python3-aiosmtpd");
        }
        Thread.sleep(50);
      }
    }
    return new Sink() {
      public int port() {
        return port;
      }

      public String name() {
        return "aiosmtpd (its own process, emails discarded)";
      }

      public void reset() {
        // Each configuration has a database of its own.
      }

      /**
       * The server keeps nothing: the inbox's processed messages are the accepted emails. Polls for
       * the last pending one (the inbox's partial index of unprocessed messages keeps that cheap),
       * then checks the total once.
       */
      public void await(BenchDatabase db, int total) throws Exception {
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (db.count(
                "SELECT count(*) FROM (SELECT 1 FROM inbox.mailroom WHERE processed_at IS NULL LIMIT 1) p")
            > 0) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("not every email was delivered");
          }
          Thread.sleep(10);
        }
        long delivered =
            db.count("SELECT count(*) FROM inbox.mailroom WHERE processed_at IS NOT NULL");
        if (delivered < total) {
          throw new IllegalStateException(
              "only " + delivered + " of " + total + " emails were delivered");
        }
      }

      public void close() {
        server.destroy();
      }
    };
  }

  private static void throughput(
      Report report, int runs, double scale, Path jar, List<String> jvmFlags, Sink sink)
      throws Exception {
    report.section(
        "Mailroom delivery by SMTP to "
            + sink.name()
            + " (batch limit 100, connections kept between batches; JVM flags: "
            + (jvmFlags.isEmpty() ? "none" : String.join(" ", jvmFlags))
            + ")",
        "| MAILROOM_CONCURRENCY | MAILROOM_SMTP_CONNECTIONS | emails | first drain after start, emails/s | drain after the commit, emails/s | collector peak RSS |");
    int emails = (int) Math.max(1_000, 20_000 * scale);
    for (int[] configuration : CONFIGURATIONS) {
      int concurrency = configuration[0];
      int connections = configuration[1];
      BenchDatabase db = BenchDatabase.create("delivery");
      Map<String, String> env = environment(db, jar, sink.port());
      env.put("MAILROOM_BATCH_LIMIT", "100");
      env.put("MAILROOM_CONCURRENCY", Integer.toString(concurrency));
      env.put("MAILROOM_SMTP_CONNECTIONS", Integer.toString(connections));
      sink.reset();
      Measurements drain = new Measurements();
      double cold = 0;
      try (CollectorProcess collector = new CollectorProcess(jar, jvmFlags, env, false)) {
        collector.awaitLog("connected", 120);
        for (int run = -1; run < runs; run++) {
          MailroomScenario.settle(db);
          MailroomScenario.insertAccounts(db, "d" + run + "c" + concurrency, emails);
          long committed = System.nanoTime();
          sink.await(db, (run + 2) * emails);
          double rate = emails / ((System.nanoTime() - committed) / 1e9);
          if (run < 0) {
            cold = rate;
          } else {
            drain.add(rate);
          }
        }
        report.row(
            concurrency,
            connections,
            String.format("%,d", emails),
            String.format("%,.0f", cold),
            drain.summary(),
            String.format(Locale.ROOT, "%.0f MiB", collector.peakRssMib()));
      }
    }
  }

  /**
   * MAILROOM_SEND_RATE=r with many more tokens waiting than the burst: the steady rate, measured
   * after the burst (the bucket starts full), against r.
   */
  private static void budget(
      Report report, double scale, Path jar, List<String> jvmFlags, Sink sink) throws Exception {
    report.section(
        "Mailroom send-rate budget (MAILROOM_SEND_RATE) while delivering by SMTP to "
            + sink.name()
            + " (batch limit 100)",
        "| budget, emails/s | emails | steady rate (email 200 to the last), emails/s | deviation |");
    for (double budget : new double[] {20, 100}) {
      int emails = (int) Math.max(600, budget * 30);
      BenchDatabase db = BenchDatabase.create("budget");
      Map<String, String> env = environment(db, jar, sink.port());
      env.put("MAILROOM_BATCH_LIMIT", "100");
      env.put("MAILROOM_SEND_RATE", Double.toString(budget));
      sink.reset();
      try (CollectorProcess collector = new CollectorProcess(jar, jvmFlags, env, false)) {
        collector.awaitLog("connected", 120);
        MailroomScenario.insertAccounts(db, "b" + (int) budget, emails);
        // Steady state only: from the 200th email (the burst of 100 and the refill during its
        // delivery are behind) to the last.
        int from = 200;
        sink.await(db, from);
        long start = System.nanoTime();
        sink.await(db, emails);
        double measured = (emails - from) / ((System.nanoTime() - start) / 1e9);
        report.row(
            String.format(Locale.ROOT, "%.0f", budget),
            emails,
            String.format(Locale.ROOT, "%.1f", measured),
            String.format(Locale.ROOT, "%+.1f %%", (measured / budget - 1) * 100));
      }
    }
  }

  private static Map<String, String> environment(BenchDatabase db, Path jar, int port)
      throws Exception {
    Map<String, String> env = MailroomScenario.collectorEnvironment(db, jar);
    env.put("MAILROOM_DELIVERY", "smtp");
    env.put("MAILROOM_SMTP_HOST", "127.0.0.1");
    env.put("MAILROOM_SMTP_PORT", Integer.toString(port));
    env.put("MAILROOM_SMTP_TLS", "none");
    env.put("MAILROOM_BATCH_TIMEOUT", "1000");
    return env;
  }
}
