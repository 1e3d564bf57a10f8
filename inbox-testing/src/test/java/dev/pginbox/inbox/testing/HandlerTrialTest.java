package dev.pginbox.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.Outcome;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A handler's decisions through the worker's batch logic, without a database. */
class HandlerTrialTest {

  private static NewMessage order(String id) {
    return NewMessage.of(id, "order.placed", "o-" + id, "{\"sku\":\"" + id + "\"}");
  }

  @Test
  void a_message_that_always_fails_is_dead_after_max_retries_and_the_others_are_processed() {
    List<String> handled = new ArrayList<>();
    Map<String, MessageState> states =
        HandlerTrial.of(
                (m, tx) -> {
                  handled.add(m.eventId());
                  if (m.eventId().equals("e2")) {
                    throw new IllegalStateException("out of stock");
                  }
                  return Outcome.processed();
                })
            .maxRetries(2)
            .deliver(order("e1"), order("e2"), order("e3"));

    assertThat(states).containsOnlyKeys("e1", "e2", "e3");
    states.get("e1").assertProcessed();
    states.get("e3").assertProcessed();
    states.get("e2").assertDeadLetter("out of stock");
    assertThat(handled).containsExactly("e1", "e2", "e3", "e2");
  }

  @Test
  void a_message_that_fails_once_is_processed_on_its_retry_with_its_failure_counted() {
    List<String> failedOnce = new ArrayList<>();
    Map<String, MessageState> states =
        HandlerTrial.of(
                (m, tx) -> {
                  if (m.retryCount() == 0 && m.eventId().equals("e1")) {
                    failedOnce.add(m.eventId());
                    return Outcome.retry("carrier busy");
                  }
                  return Outcome.processed();
                })
            .deliver(order("e1"), order("e1"), order("e2"));

    assertThat(states).containsOnlyKeys("e1", "e2"); // the repeated e1 is ignored
    assertThat(failedOnce).containsExactly("e1");
    assertThat(states.get("e1").processed()).isTrue();
    assertThat(states.get("e1").retryCount()).isEqualTo(1);
  }

  @Test
  void a_message_the_handler_declares_dead_is_a_dead_letter_at_once() {
    Map<String, MessageState> states =
        HandlerTrial.of((m, tx) -> Outcome.dead("malformed order"))
            .maxRetries(5)
            .deliver(order("e1"));

    states.get("e1").assertDeadLetter("malformed order");
  }

  @Test
  void a_batch_handler_that_throws_is_narrowed_down_to_the_message_that_breaks_it() {
    List<Integer> batchSizes = new ArrayList<>();
    Map<String, MessageState> states =
        HandlerTrial.ofBatches(
                (batch, tx) -> {
                  batchSizes.add(batch.size());
                  if (batch.stream().anyMatch(m -> m.eventId().equals("e3"))) {
                    throw new IllegalArgumentException("e3 is malformed");
                  }
                  return BatchResult.allProcessed();
                })
            .maxRetries(1)
            .batchSize(4)
            .deliver(order("e1"), order("e2"), order("e3"), order("e4"));

    states.get("e3").assertDeadLetter("e3 is malformed");
    List.of("e1", "e2", "e4").forEach(id -> states.get(id).assertProcessed());
    assertThat(batchSizes).startsWith(4, 2, 2, 1);
  }

  @Test
  void a_handler_that_needs_the_database_is_told_so() {
    Map<String, MessageState> states =
        HandlerTrial.of(
                (m, tx) -> {
                  tx.unwrap(Connection.class);
                  return Outcome.processed();
                })
            .maxRetries(1)
            .deliver(order("e1"));

    states.get("e1").assertDeadLetter("no database here");
  }

  @Test
  void options_out_of_range_are_refused() {
    assertThatThrownBy(() -> HandlerTrial.of((m, tx) -> null).maxRetries(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRetries");
    assertThatThrownBy(() -> HandlerTrial.of((m, tx) -> null).batchSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize");
  }
}
