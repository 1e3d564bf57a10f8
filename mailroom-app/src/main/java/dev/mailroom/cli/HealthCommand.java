package dev.mailroom.cli;

import dev.mailroom.text.JsonObject;
import dev.pginbox.inbox.operations.HealthStatus;
import dev.pginbox.inbox.operations.InboxHealth;
import java.io.PrintStream;
import java.util.Locale;
import javax.sql.DataSource;
import picocli.CommandLine.Command;

@Command(
    name = "health",
    mixinStandardHelpOptions = true,
    description =
        "Prints the health of the inbox MAILROOM_QUEUE_NAME as JSON; exits with 1 when the status is critical.")
final class HealthCommand extends OperatorCommand {

  @Override
  int run(DataSource dataSource, PrintStream out) {
    InboxHealth health = inbox(dataSource).health();
    out.println(
        new JsonObject()
            .add("inbox", health.inbox())
            .add("status", health.status().name().toLowerCase(Locale.ROOT))
            .add("pending_count", health.pendingCount())
            .add("pending_count_exact", health.pendingCountExact())
            .add("dlq_count", health.dlqCount())
            .add("dlq_count_exact", health.dlqCountExact())
            .add("oldest_pending_age_seconds", health.oldestPendingAgeSeconds())
            .add("throughput_per_minute", health.throughputPerMinute())
            .add("processing_count", health.processingCount())
            .add("blocked_aggregates", health.blockedAggregates())
            .add("blocked_aggregates_exact", health.blockedAggregatesExact())
            .add("blocked_count", health.blockedCount())
            .add("worst_partition_lag_seconds", health.worstPartitionLagSeconds())
            .add("xmin_horizon_held_seconds", health.horizonHeldSeconds())
            .add(
                "xmin_horizon_holder",
                health.horizonHolder() == null ? null : health.horizonHolder().summary())
            .add("status_reasons", String.join("; ", health.statusReasons()))
            .toString());
    return health.status() == HealthStatus.CRITICAL ? 1 : 0;
  }
}
