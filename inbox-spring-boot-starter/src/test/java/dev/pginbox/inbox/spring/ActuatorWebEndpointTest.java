package dev.pginbox.inbox.spring;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The {@code inbox} endpoint over HTTP, as an operator calls it: requests copied from
 * docs/spring-boot.md, answers read as JSON text.
 */
class ActuatorWebEndpointTest extends SpringInboxTest {

  @Autowired InboxTemplate inboxes;
  @Autowired PostgresInboxManager manager;
  @LocalServerPort int port;

  record Answer(int status, String body) {}

  private Answer call(HttpMethod method, String path, String json) {
    RestClient.RequestBodySpec request =
        RestClient.create("http://localhost:" + port).method(method).uri("/actuator" + path);
    if (json != null) {
      request.contentType(MediaType.APPLICATION_JSON).body(json);
    }
    return request.exchange(
        (req, res) ->
            new Answer(
                res.getStatusCode().value(), new String(res.getBody().readAllBytes(), UTF_8)));
  }

  /**
   * Dead letters in {@code notes}: its listener rejects type "reject", with one attempt allowed.
   */
  private void deadLetters(String... eventIds) {
    for (String id : eventIds) {
      inboxes.send("notes", NewMessage.of(id, "reject", "N-" + id, "{\"note\": \"" + id + "\"}"));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                manager.inbox("notes").deadLetters(1000).stream()
                        .filter(m -> List.of(eventIds).contains(m.eventId()))
                        .count()
                    == eventIds.length);
  }

  @Test
  void the_documented_replay_request_replays_the_dead_letters() {
    deadLetters("e1");

    // docs/spring-boot.md: POST /actuator/inbox/{name} with {"eventIds": ["e1"]}
    Answer answer = call(HttpMethod.POST, "/inbox/notes", "{\"eventIds\": [\"e1\"]}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).contains("\"replayed\":1");
  }

  @Test
  void event_ids_as_a_string_or_a_comma_separated_string_still_replay() {
    deadLetters("web-one", "web-two", "web-three");

    Answer one = call(HttpMethod.POST, "/inbox/notes", "{\"eventIds\": \"web-one\"}");
    Answer two = call(HttpMethod.POST, "/inbox/notes", "{\"eventIds\": \"web-two,web-three\"}");

    assertThat(one.body()).contains("\"replayed\":1");
    assertThat(two.body()).contains("\"replayed\":2");
  }

  @Test
  void a_replay_of_an_event_type_replays_its_dead_letters() {
    deadLetters("web-type-1");

    Answer answer = call(HttpMethod.POST, "/inbox/notes", "{\"eventType\": \"reject\"}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).contains("\"replayed\":");
  }

  @Test
  void a_replay_request_without_a_selection_answers_400_with_the_reason() {
    Answer empty = call(HttpMethod.POST, "/inbox/notes", "{}");
    Answer noBody = call(HttpMethod.POST, "/inbox/notes", "");

    assertThat(empty.status()).isEqualTo(400);
    assertThat(empty.body()).contains("eventIds").contains("eventType");
    assertThat(noBody.status()).isEqualTo(400);
    assertThat(noBody.body()).contains("eventIds").contains("eventType");
  }

  @Test
  void a_replay_request_with_both_selections_answers_400_with_the_reason() {
    Answer both =
        call(
            HttpMethod.POST, "/inbox/notes", "{\"eventIds\": [\"e1\"], \"eventType\": \"reject\"}");

    assertThat(both.status()).isEqualTo(400);
    assertThat(both.body()).contains("exactly one of eventIds and eventType");
  }

  @Test
  void malformed_event_ids_answer_400_with_the_reason() {
    Answer nested = call(HttpMethod.POST, "/inbox/notes", "{\"eventIds\": [[\"e1\"]]}");
    Answer none = call(HttpMethod.POST, "/inbox/notes", "{\"eventIds\": []}");
    Answer blank = call(HttpMethod.POST, "/inbox/notes", "{\"eventIds\": [\"\"]}");

    assertThat(nested.status()).isEqualTo(400);
    assertThat(nested.body()).contains("eventIds");
    assertThat(none.status()).isEqualTo(400);
    assertThat(none.body()).contains("eventIds");
    assertThat(blank.status()).isEqualTo(400);
    assertThat(blank.body()).contains("eventIds");
  }

  @Test
  void a_replay_in_an_unknown_inbox_answers_404_with_the_reason() {
    Answer answer = call(HttpMethod.POST, "/inbox/no_such_inbox", "{\"eventIds\": [\"e1\"]}");

    assertThat(answer.status()).isEqualTo(404);
    assertThat(answer.body()).contains("no_such_inbox");
  }

  @Test
  void dead_letters_show_their_payload_as_json() {
    deadLetters("web-json");

    Answer answer = call(HttpMethod.GET, "/inbox/notes/dlq?limit=100", null);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body()).contains("\"payload\":{\"note\":\"web-json\"}");
  }
}
