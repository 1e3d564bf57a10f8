package dev.pginbox.inbox.jpatest;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A JPA entity with an assigned id: its INSERT waits for a flush. */
@Entity
public class Reservation {
  @Id private String id;
  private String note;

  protected Reservation() {}

  public Reservation(String id, String note) {
    this.id = id;
    this.note = note;
  }

  public String getId() {
    return id;
  }

  public String getNote() {
    return note;
  }
}
