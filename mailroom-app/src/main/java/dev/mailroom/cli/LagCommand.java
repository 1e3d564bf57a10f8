package dev.mailroom.cli;

import dev.pginbox.inbox.operations.PartitionLag;
import java.io.PrintStream;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "lag",
    mixinStandardHelpOptions = true,
    description =
        "Per partition: messages waiting, messages backing off after a failure (not lag), the age"
            + " of the oldest message that could be processed now, and the owner.")
final class LagCommand extends OperatorCommand {

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    Rows rows =
        new Rows(
            "partition",
            "waiting",
            "backing_off",
            "behind_blocked",
            "counts_exact",
            "oldest_eligible_age_seconds",
            "owner",
            "lease_expires_at");
    for (PartitionLag p : inbox(dataSource).operations().partitionLag()) {
      rows.add(
          p.partition() == null ? "all" : p.partition().toString(),
          p.waiting(),
          p.backingOff(),
          p.behindBlocked(),
          p.countsExact(),
          p.oldestEligibleAgeSeconds(),
          p.owner(),
          p.leaseExpiresAt() == null ? null : p.leaseExpiresAt().toString());
    }
    rows.print(out, json);
    return 0;
  }
}
