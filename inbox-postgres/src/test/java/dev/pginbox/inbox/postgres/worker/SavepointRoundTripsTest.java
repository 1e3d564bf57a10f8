package dev.pginbox.inbox.postgres.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.net.SocketFactory;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The savepoint that lets a failed or timed-out part undo the handler's writes: the claim's
 * statement sets it for the batch's first part, so a handler that writes pays no round trip for it;
 * a later part that writes after a part whose writes were kept pays one (release and set together).
 * Round trips are counted as flushes of the connection's socket (pgJDBC flushes once per round
 * trip), over one {@code runOnce}: one connection, one batch. And the savepoints still undo exactly
 * what they must. The lease guard of automatic partitions rides in the claim's statement too.
 */
class SavepointRoundTripsTest extends WorkerTestSupport {

  @Test
  void a_batch_handler_that_writes_pays_only_for_its_own_statement() {
    int quiet = roundTrips(b -> b.batchHandler(batchHandler(false)), 5);
    int writing = roundTrips(b -> b.batchHandler(batchHandler(true)), 5);
    assertThat(writing - quiet).as("round trips a handler's one INSERT adds").isEqualTo(1);
  }

  @Test
  void a_message_handler_pays_one_round_trip_per_savepoint_after_the_first_message() {
    int quiet = roundTrips(b -> b.handler(messageHandler(false)), 3);
    int writing = roundTrips(b -> b.handler(messageHandler(true)), 3);
    // Three INSERTs; the first message's savepoint came with the claim, each later one releases
    // the previous and sets its own in one round trip (before: a SAVEPOINT per message and a
    // RELEASE per message but the last, 8).
    assertThat(writing - quiet).isEqualTo(3 + 2);
  }

  @Test
  void failed_parts_are_rolled_back_to_their_own_start_and_kept_parts_stay() {
    String inbox = newInbox("savepoints");
    insert(inbox, "m", 0, 6, 6);
    // m-0 writes and succeeds, m-1 fails without writing, m-2 writes and fails, m-3 writes and
    // succeeds right after that rollback, m-4 fails without writing, m-5 writes and succeeds.
    MessageHandler handler =
        (m, tx) -> {
          int n = Integer.parseInt(m.eventId().substring(2));
          if (n != 1 && n != 4) {
            recordHandled(tx.unwrap(Handle.class), inbox, m.eventId(), "w", m.aggregateId());
          }
          if (n == 1 || n == 2 || n == 4) {
            throw new IllegalStateException("fails " + m.eventId());
          }
          return Outcome.processed();
        };
    InboxWorker worker =
        PostgresInboxWorker.builder(dataSource(), options(inbox, false).build())
            .handler(handler)
            .build();
    assertThat(worker.runOnce()).isEqualTo(6);
    assertThat(
            string("SELECT string_agg(event_id, ',' ORDER BY event_id) FROM " + inbox + "_handled"))
        .isEqualTo("m-0,m-3,m-5");
    assertThat(
            string(
                "SELECT string_agg(event_id || ':' || retry_count, ',' ORDER BY event_id) FROM inbox."
                    + inbox))
        .isEqualTo("m-0:0,m-1:1,m-2:1,m-3:0,m-4:1,m-5:0");
  }

  private static BatchHandler batchHandler(boolean writes) {
    return (batch, tx) -> {
      if (writes) {
        tx.unwrap(Handle.class)
            .execute(
                "INSERT INTO savepoint_writes SELECT count(*) FROM generate_series(1, ?)",
                batch.size());
      }
      return BatchResult.allProcessed();
    };
  }

  private static MessageHandler messageHandler(boolean writes) {
    return (m, tx) -> {
      if (writes) {
        tx.unwrap(Handle.class).execute("INSERT INTO savepoint_writes VALUES (1)");
      }
      return Outcome.processed();
    };
  }

  @Test
  void the_lease_guard_of_automatic_partitions_costs_no_round_trip_of_its_own() {
    int all = claimConnectionTrips(PartitionAssignment.all());
    int automatic =
        claimConnectionTrips(new PartitionAssignment.Automatic(4, Duration.ofSeconds(30)));
    assertThat(automatic).as("round trips of the claim connection").isEqualTo(all);
  }

  /**
   * The round trips of one runOnce's claim connection (the last one it opens: an automatic worker's
   * heartbeat has its own, opened first) over 5 new messages in one batch.
   */
  private static int claimConnectionTrips(PartitionAssignment partitions) {
    String inbox = newInbox("guard");
    insert(inbox, "m", 0, 5, 5);
    InboxWorker worker =
        PostgresInboxWorker.builder(counted(), options(inbox, false).partitions(partitions).build())
            .batchHandler(batchHandler(false))
            .build();
    int before = CountingSocketFactory.SOCKETS.size();
    assertThat(worker.runOnce()).isEqualTo(5);
    assertThat(CountingSocketFactory.SOCKETS.size()).isGreaterThan(before);
    return CountingSocketFactory.SOCKETS.get(CountingSocketFactory.SOCKETS.size() - 1).get();
  }

  /** The round trips of one runOnce over {@code messages} new messages, with that handler. */
  private static int roundTrips(UnaryOperator<PostgresInboxWorker.Builder> handler, int messages) {
    execute("CREATE TABLE IF NOT EXISTS savepoint_writes (n bigint)");
    String inbox = newInbox("trips");
    insert(inbox, "m", 0, messages, messages);
    InboxWorker worker =
        handler
            .apply(PostgresInboxWorker.builder(counted(), options(inbox, false).build()))
            .build();
    int before = CountingSocketFactory.FLUSHES.get();
    assertThat(worker.runOnce()).isEqualTo(messages);
    return CountingSocketFactory.FLUSHES.get() - before;
  }

  private static DataSource counted() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(DB.jdbcUrl());
    if (DB.user() != null) {
      ds.setUser(DB.user());
    }
    if (DB.password() != null) {
      ds.setPassword(DB.password());
    }
    ds.setSslMode("disable"); // flushes of the plain socket, not of a TLS layer on top of it
    ds.setSocketFactory(CountingSocketFactory.class.getName());
    return ds;
  }

  private static String string(String query) {
    try (Handle h = JDBI.open()) {
      return h.createQuery(query).mapTo(String.class).one();
    }
  }

  /** Sockets whose output streams count their flushes (pgJDBC instantiates it by name). */
  public static final class CountingSocketFactory extends SocketFactory {

    static final AtomicInteger FLUSHES = new AtomicInteger();

    /** The flushes of each socket, in the order they were opened. */
    static final List<AtomicInteger> SOCKETS = new CopyOnWriteArrayList<>();

    public CountingSocketFactory() {}

    @Override
    public Socket createSocket() {
      AtomicInteger mine = new AtomicInteger();
      SOCKETS.add(mine);
      return new Socket() {
        private OutputStream counting;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
          if (counting == null) {
            counting =
                new FilterOutputStream(super.getOutputStream()) {
                  @Override
                  public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                  }

                  @Override
                  public void flush() throws IOException {
                    FLUSHES.incrementAndGet();
                    mine.incrementAndGet();
                    super.flush();
                  }
                };
          }
          return counting;
        }
      };
    }

    @Override
    public Socket createSocket(String host, int port) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress local, int localPort) {
      throw new UnsupportedOperationException();
    }
  }
}
