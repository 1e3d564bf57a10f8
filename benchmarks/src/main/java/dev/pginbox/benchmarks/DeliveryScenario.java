package dev.pginbox.benchmarks;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The mailroom collector delivering by SMTP (MAILROOM_DELIVERY=smtp) to a GreenMail server in this
 * JVM on 127.0.0.1: emails per second at batch limit 100 (one SMTP connection per batch), the
 * send-rate budget's accuracy, and the collector's peak RSS while delivering.
 */
final class DeliveryScenario {

  private DeliveryScenario() {}

  static void run(
      Report report, int runs, double scale, Path jar, List<String> jvmFlags, boolean throughput)
      throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: build it with ./mvnw -q package -DskipTests");
    }
    // GreenMail logs every recipient's mailbox it creates at INFO: measure the collector, not that.
    System.setProperty("org.slf4j.simpleLogger.log.com.icegreen", "warn");
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    GreenMail smtp = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
    smtp.start();
    try {
      if (throughput) {
        throughput(report, runs, scale, jar, jvmFlags, smtp, port);
      }
      budget(report, scale, jar, jvmFlags, smtp, port);
    } finally {
      smtp.stop();
    }
  }

  private static void throughput(
      Report report, int runs, double scale, Path jar, List<String> jvmFlags, GreenMail smtp, int port)
      throws Exception {
    report.section(
        "Mailroom delivery by SMTP to a local GreenMail server (batch limit 100, one connection per batch; JVM flags: "
            + (jvmFlags.isEmpty() ? "none" : String.join(" ", jvmFlags)) + ")",
        "| MAILROOM_CONCURRENCY | emails | first drain after start, emails/s | drain after the commit, emails/s | collector peak RSS |");
    int emails = (int) Math.max(1_000, 20_000 * scale);
    for (int concurrency : new int[] {1, 2}) {
      BenchDatabase db = BenchDatabase.create("delivery");
      Map<String, String> env = environment(db, jar, port);
      env.put("MAILROOM_BATCH_LIMIT", "100");
      env.put("MAILROOM_CONCURRENCY", Integer.toString(concurrency));
      smtp.purgeEmailFromAllMailboxes();
      Measurements drain = new Measurements();
      double cold = 0;
      try (CollectorProcess collector = new CollectorProcess(jar, jvmFlags, env, false)) {
        collector.awaitLog("connected", 120);
        for (int run = -1; run < runs; run++) {
          MailroomScenario.settle(db);
          MailroomScenario.insertAccounts(db, "d" + run + "c" + concurrency, emails);
          long committed = System.nanoTime();
          int expected = (run + 2) * emails;
          if (!smtp.waitForIncomingEmail(600_000, expected)) {
            throw new IllegalStateException("only " + smtp.getReceivedMessages().length + " of " + expected + " emails arrived");
          }
          double rate = emails / ((System.nanoTime() - committed) / 1e9);
          if (run < 0) {
            cold = rate;
          } else {
            drain.add(rate);
          }
        }
        report.row(concurrency, String.format("%,d", emails), String.format("%,.0f", cold), drain.summary(),
            String.format(Locale.ROOT, "%.0f MiB", collector.peakRssMib()));
      }
    }
  }

  /**
   * MAILROOM_SEND_RATE=r with many more tokens waiting than the burst: the steady rate, measured
   * after the burst (the bucket starts full), against r.
   */
  private static void budget(
      Report report, double scale, Path jar, List<String> jvmFlags, GreenMail smtp, int port)
      throws Exception {
    report.section(
        "Mailroom send-rate budget (MAILROOM_SEND_RATE) while delivering by SMTP (batch limit 100)",
        "| budget, emails/s | emails | steady rate (email 200 to the last), emails/s | deviation |");
    for (double budget : new double[] {20, 100}) {
      int emails = (int) Math.max(600, budget * 30);
      BenchDatabase db = BenchDatabase.create("budget");
      Map<String, String> env = environment(db, jar, port);
      env.put("MAILROOM_BATCH_LIMIT", "100");
      env.put("MAILROOM_SEND_RATE", Double.toString(budget));
      smtp.purgeEmailFromAllMailboxes();
      try (CollectorProcess collector = new CollectorProcess(jar, jvmFlags, env, false)) {
        collector.awaitLog("connected", 120);
        MailroomScenario.insertAccounts(db, "b" + (int) budget, emails);
        // Steady state only: from the 200th email (the burst of 100 and the refill during its
        // delivery are behind) to the last.
        int from = 200;
        if (!smtp.waitForIncomingEmail(600_000, from)) {
          throw new IllegalStateException("the first emails did not arrive");
        }
        long start = System.nanoTime();
        if (!smtp.waitForIncomingEmail(600_000, emails)) {
          throw new IllegalStateException("not every email arrived");
        }
        double measured = (emails - from) / ((System.nanoTime() - start) / 1e9);
        report.row(String.format(Locale.ROOT, "%.0f", budget), emails,
            String.format(Locale.ROOT, "%.1f", measured),
            String.format(Locale.ROOT, "%+.1f %%", (measured / budget - 1) * 100));
      }
    }
  }

  private static Map<String, String> environment(BenchDatabase db, Path jar, int port) throws Exception {
    Map<String, String> env = MailroomScenario.collectorEnvironment(db, jar);
    env.put("MAILROOM_DELIVERY", "smtp");
    env.put("MAILROOM_SMTP_HOST", "127.0.0.1");
    env.put("MAILROOM_SMTP_PORT", Integer.toString(port));
    env.put("MAILROOM_SMTP_TLS", "none");
    env.put("MAILROOM_BATCH_TIMEOUT", "1000");
    return env;
  }
}
