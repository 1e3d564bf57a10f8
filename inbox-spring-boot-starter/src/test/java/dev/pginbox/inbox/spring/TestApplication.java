package dev.pginbox.inbox.spring;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The application the starter's tests run: listeners of every kind, each on its own inbox. Its
 * component scan covers the starter's package and so picks up {@link InboxEndpointBodyAdvice} (a
 * {@code @ControllerAdvice}), which the auto-configuration then leaves alone; the example
 * application's test runs the auto-configured one.
 */
@SpringBootApplication
class TestApplication {

  /** The payload of {@code orders} messages. */
  record OrderPlaced(String orderId, String sku, int quantity) {}

  /** Orders take stock through JdbcTemplate; sku FAIL-AFTER-WRITE fails after writing. */
  @Component
  static class OrderListener {
    private final JdbcTemplate jdbc;

    OrderListener(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @InboxListener(inbox = "orders")
    public void on(OrderPlaced order, InboxMessage message) {
      int updated =
          jdbc.update(
              "UPDATE stock SET quantity = quantity - ? WHERE sku = ?",
              order.quantity(),
              order.sku());
      if (updated == 0) {
        jdbc.update(
            "INSERT INTO stock (sku, quantity) VALUES (?, ?)", order.sku(), -order.quantity());
      }
      if (order.sku().equals("FAIL-AFTER-WRITE")) {
        throw new IllegalStateException("failed after writing stock for " + message.eventId());
      }
    }
  }

  /** Whole batches through JdbcClient. */
  @Component
  static class AuditListener {
    private final JdbcClient jdbc;

    AuditListener(JdbcClient jdbc) {
      this.jdbc = jdbc;
    }

    @InboxListener(inbox = "audit")
    public void on(List<InboxMessage> batch) {
      for (InboxMessage m : batch) {
        jdbc.sql("INSERT INTO audit_log (event_id, event_type) VALUES (?, ?)")
            .params(m.eventId(), m.eventType())
            .update();
      }
    }
  }

  /** A @Transactional service the notes listener calls. */
  @Service
  static class NoteService {
    private final JdbcTemplate jdbc;

    NoteService(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional
    public void save(String eventId, String note) {
      jdbc.update("INSERT INTO notes (event_id, note) VALUES (?, ?)", eventId, note);
      if (note.equals("reject")) {
        throw new IllegalArgumentException("rejected note " + eventId);
      }
    }
  }

  /** Calls a @Transactional method and swallows its failure: the message must still fail. */
  @Component
  static class NoteListener {
    private final NoteService notes;

    NoteListener(NoteService notes) {
      this.notes = notes;
    }

    @InboxListener(inbox = "notes")
    public Outcome on(InboxMessage message) {
      try {
        notes.save(message.eventId(), message.eventType());
      } catch (IllegalArgumentException e) {
        return Outcome.processed(); // wrong on purpose: the rollback-only mark wins
      }
      return Outcome.processed();
    }
  }

  /** A handler bean with a qualifier rather than an annotated method. */
  @Bean
  @Qualifier("pings")
  MessageHandler pingHandler(JdbcTemplate jdbc) {
    return (message, tx) -> {
      jdbc.update("INSERT INTO pings (event_id) VALUES (?)", message.eventId());
      return Outcome.processed();
    };
  }

  /** Finished spans, for the tracing test. */
  static final class RecordedSpans extends SpanHandler {
    final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

    @Override
    public boolean end(TraceContext context, MutableSpan span, Cause cause) {
      spans.add(span);
      return true;
    }
  }

  @Bean
  RecordedSpans recordedSpans() {
    return new RecordedSpans();
  }
}
