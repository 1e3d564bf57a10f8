package dev.pginbox.benchmarks;

import dev.pginbox.inbox.postgres.PostgresInbox;
import dev.pginbox.inbox.postgres.PostgresInboxManager;

/**
 * Our side of the peer comparison ({@code benchmarks/peers/run.sh}): exactly the messages and batch
 * size each peer gets, one producer or one worker, one timed run after an untimed warm-up of as
 * many messages (as the peers' clients do), so the rows compare like with like. A warm-up of a
 * tenth left HotSpot partly interpreting the producer: 50,000 against 200,000 messages read 49,442
 * against 55,996 msg/s.
 */
final class PeerScenario {

  private PeerScenario() {}

  static void produce(Report report, int batch, int messages) throws Exception {
    header(report);
    BenchDatabase db = BenchDatabase.create("peer_produce");
    PostgresInboxManager.create(db.dataSource).createInbox("peer_produce");
    PostgresInbox inbox = PostgresInboxManager.create(db.dataSource).inbox("peer_produce");
    ProduceScenario.produce(inbox, "w-", batch, 1, warmup(batch, messages));
    db.execute("TRUNCATE inbox.peer_produce");
    int timed = messages - messages % batch;
    report.row(
        "ours",
        "produce",
        batch,
        timed,
        Math.round(ProduceScenario.produce(inbox, "m-", batch, 1, timed)));
  }

  static void consume(Report report, int batch, int messages, boolean ordered) throws Exception {
    header(report);
    BenchDatabase db = BenchDatabase.create("peer_consume");
    PostgresInboxManager manager = PostgresInboxManager.create(db.dataSource);
    String inbox = ordered ? "peer_consume_ordered" : "peer_consume";
    manager.createInbox(inbox);
    if (ordered) {
      manager.enableOrdering(inbox);
    }
    ConsumeScenario.Variant variant =
        ordered ? ConsumeScenario.Variant.ORDERED : ConsumeScenario.Variant.PLAIN;
    ConsumeScenario.drain(db, inbox, variant, batch, 1, warmup(batch, messages));
    int timed = messages - messages % batch;
    report.row(
        ordered ? "ours-ordered" : "ours",
        "consume",
        batch,
        timed,
        Math.round(ConsumeScenario.drain(db, inbox, variant, batch, 1, timed).rate()));
  }

  private static int warmup(int batch, int messages) {
    return messages - messages % batch;
  }

  private static void header(Report report) {
    report.section(
        "Peer comparison workload (messages/s, one timed run)",
        "| peer | workload | batch | messages | messages/s |");
  }
}
