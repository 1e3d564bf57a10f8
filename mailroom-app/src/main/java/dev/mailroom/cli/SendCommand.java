package dev.mailroom.cli;

import dev.mailroom.collector.SendRateLimiter;
import dev.mailroom.config.ConfigException;
import dev.mailroom.config.EnvironmentConfig;
import dev.mailroom.config.MailroomConfig;
import dev.mailroom.delivery.Deliveries;
import dev.mailroom.delivery.DeliveryConfig;
import dev.mailroom.output.DeliveryOutcome;
import dev.mailroom.output.OutputRecord;
import dev.mailroom.output.SenderLines;
import dev.mailroom.output.TokenDelivery;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

@Command(
    name = "send",
    mixinStandardHelpOptions = true,
    description = {
      "Reads the original collector's lines from stdin and delivers them with MAILROOM_DELIVERY"
          + " (smtp or ses): a drop-in for the original sender in `collector | sender`.",
      "A malformed line is reported with its number and skipped; temporary failures are retried"
          + " a few times. Exit code 1 when any line or email was not delivered."
    })
final class SendCommand implements Callable<Integer> {

  static final int MAX_LINE_BYTES = 1 << 20;
  private static final int ATTEMPTS = 5;
  private static final long FIRST_BACKOFF_MS = 500;

  @ParentCommand MailroomCommand parent;

  /** The input; System.in unless a test hands in another stream. */
  InputStream stdin = System.in;

  @Override
  public Integer call() {
    PrintStream err = parent.io.stderr();
    DeliveryConfig deliveryConfig;
    MailroomConfig config;
    try {
      deliveryConfig = DeliveryConfig.read(parent.io.env());
      config = EnvironmentConfig.read(parent.io.env());
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    SendRateLimiter limiter =
        config.sendRate() == null ? null : SendRateLimiter.of(config.sendRate(), 10);
    int failures = 0;
    try (TokenDelivery delivery = Deliveries.create(deliveryConfig, parent.io.stdout())) {
      BoundedLines lines = new BoundedLines(new BufferedInputStream(stdin), MAX_LINE_BYTES);
      for (BoundedLines.Line line = lines.next(); line != null; line = lines.next()) {
        if (line.tooLong()) {
          err.println("line " + line.number() + ": longer than " + MAX_LINE_BYTES + " bytes");
          failures++;
          continue;
        }
        List<OutputRecord> records;
        try {
          records = SenderLines.parse(line.text());
        } catch (SenderLines.MalformedLineException e) {
          err.println("line " + line.number() + ": " + e.getMessage());
          failures++;
          continue;
        }
        if (limiter != null) {
          limiter.awaitPermit();
        }
        failures += deliver(delivery, records, line.number(), err);
        if (limiter != null) {
          limiter.consume(records.size());
        }
      }
    } catch (IOException e) {
      err.println("error: cannot read stdin: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
    return failures == 0 ? 0 : 1;
  }

  /** Delivers, retrying temporary failures with a growing pause; returns how many failed. */
  private static int deliver(
      TokenDelivery delivery, List<OutputRecord> records, int lineNumber, PrintStream err)
      throws InterruptedException {
    List<OutputRecord> pending = records;
    long backoff = FIRST_BACKOFF_MS;
    int failed = 0;
    for (int attempt = 1; !pending.isEmpty(); attempt++) {
      List<DeliveryOutcome> outcomes = delivery.deliver(pending);
      List<OutputRecord> again = new ArrayList<>();
      for (int i = 0; i < pending.size(); i++) {
        DeliveryOutcome o = outcomes.get(i);
        boolean retry = o.kind() == DeliveryOutcome.Kind.TEMPORARY_FAILURE && attempt < ATTEMPTS;
        if (retry) {
          again.add(pending.get(i));
        } else if (o.kind() != DeliveryOutcome.Kind.DELIVERED) {
          failed++;
          err.println(
              "line "
                  + lineNumber
                  + ": "
                  + pending.get(i).email()
                  + ": not delivered: "
                  + o.detail());
        }
      }
      pending = again;
      if (!pending.isEmpty()) {
        Thread.sleep(backoff);
        backoff *= 2;
      }
    }
    return failed;
  }
}
