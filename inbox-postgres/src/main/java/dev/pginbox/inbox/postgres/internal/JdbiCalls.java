package dev.pginbox.inbox.postgres.internal;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * Runs a piece of work on a Jdbi handle and turns whatever it throws into the inbox's exceptions
 * ({@link SqlErrors}), naming the action, inbox and event. The inbox, its manager and its
 * operations all call the database this way, each through this class rather than through one
 * another, so none of them depends on the others for it.
 */
public final class JdbiCalls {

  private JdbiCalls() {}

  /** Runs {@code callback} on a handle of its own, taken from {@code jdbi} and closed after. */
  public static <T> T withHandle(
      Jdbi jdbi,
      String action,
      String inbox,
      String eventId,
      HandleCallback<T, Exception> callback) {
    try {
      return jdbi.withHandle(callback);
    } catch (Exception e) {
      throw SqlErrors.translate(e, action, inbox, eventId);
    }
  }

  /** Runs {@code callback} on the caller's handle, in its current transaction. */
  public static <T> T inHandle(
      Handle handle,
      String action,
      String inbox,
      String eventId,
      HandleCallback<T, Exception> callback) {
    try {
      return callback.withHandle(handle);
    } catch (Exception e) {
      throw SqlErrors.translate(e, action, inbox, eventId);
    }
  }
}
