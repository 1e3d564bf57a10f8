package dev.pginbox.inbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import brave.handler.MutableSpan;
import dev.pginbox.inbox.NewMessage;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

class TracingTest extends SpringInboxTest {

  @Autowired InboxTemplate inboxes;
  @Autowired ObservationRegistry observations;
  @Autowired Tracer tracer;
  @Autowired JdbcTemplate jdbc;
  @Autowired TestApplication.RecordedSpans spans;

  @Test
  void the_handlers_span_continues_the_trace_of_the_request_that_sent_the_message() {
    String[] traceId = new String[1];
    Observation.createNotStarted("test.request", observations)
        .observe(
            () -> {
              traceId[0] = tracer.currentSpan().context().traceId();
              inboxes.send("pings", NewMessage.of("ping-traced", "ping", null, null));
            });

    String stored =
        jdbc.queryForObject(
            "SELECT trace_id FROM inbox.pings WHERE event_id = 'ping-traced'", String.class);
    assertThat(stored).matches("00-" + traceId[0] + "-[0-9a-f]{16}-01");
    MutableSpan handled =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    spans.spans.stream()
                        .filter(s -> "pings process".equals(s.name()))
                        .filter(s -> "ping-traced".equals(s.tag("event.id")))
                        .findFirst()
                        .orElse(null),
                s -> s != null);
    assertThat(handled.traceId()).isEqualTo(traceId[0]);
    assertThat(handled.parentId()).isEqualTo(stored.substring(36, 52)); // the inbox.send span
    assertThat(handled.tag("outcome")).isEqualTo("PROCESSED");
  }
}
