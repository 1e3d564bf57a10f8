package dev.pginbox.inbox.postgres.worker;

import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A worker in a JVM of its own, started by {@link BoundedMemoryTest} with a small heap. Arguments:
 * JDBC URL, user, password, inbox, batch size, byte budget ({@code none} for no budget). Handles
 * every message (reading its payload) until none is waiting any more, prints {@code DRAINED} and
 * exits 0; exits 3 if that takes more than two minutes.
 */
public final class SmallHeapWorkerMain {

  private SmallHeapWorkerMain() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(args[0]);
    if (!args[1].isEmpty()) {
      ds.setUser(args[1]);
    }
    if (!args[2].isEmpty()) {
      ds.setPassword(args[2]);
    }
    String inbox = args[3];
    WorkerOptions.Builder options =
        WorkerOptions.builder(inbox)
            .batchSize(Integer.parseInt(args[4]))
            .pollInterval(Duration.ofMillis(100))
            .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
    if (!args[5].equals("none")) {
      options.maxBatchBytes(Long.parseLong(args[5]));
    } else {
      options.maxBatchBytes(WorkerOptions.NO_BATCH_BYTE_LIMIT);
    }
    InboxWorker worker =
        PostgresInboxWorker.builder(ds, options.build())
            .handler(
                (m, tx) ->
                    m.payload() != null && m.payload().isEmpty()
                        ? Outcome.dead("empty")
                        : Outcome.processed())
            .build();
    worker.start();
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM inbox."
                    + inbox
                    + " m JOIN inbox.inbox_config c ON c.inbox_name = '"
                    + inbox
                    + "' WHERE m.processed_at IS NULL AND m.retry_count < c.max_retries")) {
          rs.next();
          if (rs.getLong(1) == 0) {
            worker.stop();
            System.out.println("DRAINED");
            System.exit(0);
          }
        }
        Thread.sleep(100);
      }
    }
    worker.stop();
    System.exit(3);
  }
}
