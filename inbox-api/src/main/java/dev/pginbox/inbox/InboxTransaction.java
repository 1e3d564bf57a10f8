package dev.pginbox.inbox;

/**
 * The transaction a batch was claimed in. A handler's own writes made through it commit or roll
 * back together with the messages' processed marks.
 *
 * <p>The PostgreSQL implementation unwraps to {@code org.jdbi.v3.core.Handle} and to {@code
 * java.sql.Connection}; do not commit, roll back or close what you unwrap.
 */
public interface InboxTransaction {

  /**
   * The underlying transaction object of the given type; throws if this implementation has none.
   */
  <T> T unwrap(Class<T> type);
}
