package dev.pginbox.inbox.jpatest;

import dev.pginbox.inbox.InboxMessage;
import dev.pginbox.inbox.spring.InboxListener;
import dev.pginbox.inbox.spring.InboxTemplate;
import jakarta.persistence.EntityManager;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * An application on JPA (JpaTransactionManager): its listener writes through a Spring Data JPA
 * repository and a JdbcTemplate, and fails on demand after writing.
 */
@SpringBootApplication
public class JpaTestApplication {

  @Component
  static class ReservationListener {
    private final ReservationRepository reservations;
    private final JdbcTemplate jdbc;
    private final EntityManager entityManager;

    ReservationListener(
        ReservationRepository reservations, JdbcTemplate jdbc, EntityManager entityManager) {
      this.reservations = reservations;
      this.jdbc = jdbc;
      this.entityManager = entityManager;
    }

    @InboxListener(inbox = "reservations")
    public void on(InboxMessage message) {
      reservations.save(new Reservation(message.eventId(), message.eventType()));
      jdbc.update("INSERT INTO jdbc_log (event_id) VALUES (?)", message.eventId());
      switch (message.eventType()) {
        case "fail" -> throw new IllegalStateException("failed after writing " + message.eventId());
        case "fail-flushed" -> {
          entityManager.flush();
          throw new IllegalStateException("failed after flushing " + message.eventId());
        }
        default -> {}
      }
    }
  }

  /** Sends from inside an application transaction of the JPA transaction manager. */
  @Service
  public static class Booking {
    private final ReservationRepository reservations;
    private final InboxTemplate inbox;

    Booking(ReservationRepository reservations, InboxTemplate inbox) {
      this.reservations = reservations;
      this.inbox = inbox;
    }

    @Transactional
    public void book(String id, boolean fail) {
      reservations.save(new Reservation(id, "booked"));
      inbox.send("booked", id, "booked", id, java.util.Map.of("id", id));
      if (fail) {
        throw new IllegalStateException("booking " + id + " failed");
      }
    }
  }
}
