package dev.mailroom.cli;

import dev.mailroom.collector.Collector;
import dev.mailroom.demo.Demo;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The default command: the collector, configured by the environment exactly as the original
 * (MAILROOM_DATABASE_URL, MAILROOM_SECRET_KEY, ...). SIGINT and SIGTERM stop it cleanly.
 */
@Command(
    name = "mailroom-app",
    mixinStandardHelpOptions = true,
    version = "mailroom-app 0.1.0",
    description = {
      "Collects activation and password recovery tokens from the mailroom inbox, signs them and "
          + "prints them on stdout for the sender, in the original collector's line format.",
      "Configured by the MAILROOM_* environment variables (see docs/mailroom.md). Without "
          + "MAILROOM_DATABASE_URL it starts an embedded PostgreSQL (data in MAILROOM_DATA_DIR, "
          + "default mailroom-data)."
    },
    footer = {
      "",
      "Environment: MAILROOM_DATABASE_URL, MAILROOM_SECRET_KEY | MAILROOM_SECRET_KEY_FILE, "
          + "MAILROOM_BATCH_LIMIT (10), MAILROOM_BATCH_TIMEOUT (5000 ms), MAILROOM_HEALTHCHECK_INTERVAL (270000 ms), "
          + "MAILROOM_CHANNEL_NAME (token_insert), MAILROOM_QUEUE_NAME (mailroom), MAILROOM_POLL_INTERVAL (1000 ms), "
          + "MAILROOM_PARTITION_ID + MAILROOM_PARTITION_COUNT | MAILROOM_PARTITION_MODE=auto, MAILROOM_SEND_RATE, "
          + "MAILROOM_CONCURRENCY (1), MAILROOM_CLAIM_AHEAD (0), MAILROOM_WORKER_ID, MAILROOM_DATA_DIR, "
          + "MAILROOM_EMBEDDED_PORT (54329), MAILROOM_LOG_LEVEL.",
      "Exit codes: 0 stopped by SIGTERM/SIGINT, 1 runtime failure (e.g. stdout closed), 2 configuration error."
    },
    subcommands = {
      InstallCommand.class,
      SendCommand.class,
      ServeCommand.class,
      HealthCommand.class,
      StatusCommand.class,
      DlqCommand.class,
      ReplayCommand.class,
      BlockedCommand.class,
      LagCommand.class,
      WorkersCommand.class,
      FindCommand.class,
      AuditCommand.class
    })
final class MailroomCommand implements Callable<Integer> {

  final Collector.Io io;

  @Option(
      names = "--demo",
      description =
          "The whole loop with no configuration: sample sign-ups, their emails caught by an"
              + " SMTP server on localhost and listed at http://localhost:MAILROOM_HTTP_PORT/"
              + " (8080), where a click on an activation link activates the account.")
  boolean demo;

  MailroomCommand(Collector.Io io) {
    this.io = io;
  }

  @Override
  public Integer call() {
    CountDownLatch finished = new CountDownLatch(1);
    if (demo) {
      Demo d = new Demo(io);
      Signals.onTermination(n -> d.stop("signal " + n + " received. exiting..."), finished);
      try {
        return d.run();
      } finally {
        finished.countDown();
      }
    }
    Collector collector = new Collector(io, null);
    Signals.onTermination(
        number -> collector.stop("signal " + number + " received. exiting..."), finished);
    try {
      return collector.run();
    } finally {
      finished.countDown();
    }
  }
}
