package dev.pginbox.inbox.postgres.internal.worker.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pginbox.inbox.InboxMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The parts a batch handler's batch is handed over in once some of its messages timed out. */
class SuspectsTest {

  private static InboxMessage message(String id, String aggregate) {
    return new InboxMessage(id, "t", null, aggregate, "{}", null, null, null, 0, null, 0, 0, 0);
  }

  private static List<List<String>> ids(List<List<InboxMessage>> parts) {
    return parts.stream().map(SuspectsTest::idsOf).toList();
  }

  private static List<String> idsOf(List<InboxMessage> messages) {
    return messages.stream().map(InboxMessage::eventId).toList();
  }

  private static final List<InboxMessage> BATCH =
      List.of(
          message("a1", "a"),
          message("b1", "b"),
          message("a2", "a"),
          message("b2", "b"),
          message("a3", "a"),
          message("n1", null));

  @Test
  void the_innocent_go_first_and_the_suspects_in_halves() {
    Suspects suspects = new Suspects();
    suspects.halve(List.of("a2", "b2", "a3", "x"));
    assertThat(ids(suspects.parts(BATCH, false)))
        .containsExactly(List.of("a1", "b1", "n1"), List.of("a2", "b2"), List.of("a3"));
  }

  @Test
  void with_runs_a_message_behind_a_suspect_of_its_aggregate_goes_after_the_suspect() {
    Suspects suspects = new Suspects();
    suspects.halve(List.of("a2", "x"));
    // a3 follows a2 in its aggregate: handed over with the innocent, it would come first.
    assertThat(ids(suspects.parts(BATCH, true)))
        .containsExactly(List.of("a1", "b1", "b2", "n1"), List.of("a2"), List.of("a3"));
  }

  @Test
  void nothing_suspect_is_one_part() {
    assertThat(ids(new Suspects().parts(BATCH, true))).containsExactly(idsOf(BATCH));
  }
}
