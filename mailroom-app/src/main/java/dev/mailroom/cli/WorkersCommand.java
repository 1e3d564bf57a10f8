package dev.mailroom.cli;

import dev.pginbox.inbox.operations.WorkerInfo;
import java.io.PrintStream;
import java.util.Locale;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "workers",
    mixinStandardHelpOptions = true,
    description =
        "Lists the collectors working on the inbox, live and gone within the last hour: state,"
            + " host, pid, partitions held and last heartbeat.")
final class WorkersCommand extends OperatorCommand {

  @Option(names = "--json", description = "A JSON array instead of a table.")
  boolean json;

  @Override
  int run(DataSource dataSource, PrintStream out) {
    Rows rows =
        new Rows(
            "worker_id",
            "state",
            "host",
            "pid",
            "assignment",
            "concurrency",
            "claim_ahead",
            "partitions_held",
            "last_heartbeat",
            "stopped_at");
    for (WorkerInfo w : inbox(dataSource).operations().workers()) {
      rows.add(
          w.workerId(),
          w.state().name().toLowerCase(Locale.ROOT),
          w.host(),
          w.pid(),
          w.assignment(),
          w.concurrency(),
          w.claimAhead(),
          w.partitionsHeld().toString(),
          w.lastHeartbeat() == null ? null : w.lastHeartbeat().toString(),
          w.stoppedAt() == null ? null : w.stoppedAt().toString());
    }
    rows.print(out, json);
    return 0;
  }
}
