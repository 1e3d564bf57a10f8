package dev.mailroom.output;

import java.util.List;
import java.util.Optional;

/**
 * Where signed tokens go: the original sender's lines on stdout, an SMTP server, or Amazon SES.
 * Called with one batch at a time, inside the batch's transaction; implementations may be called
 * from several processor threads at once (MAILROOM_CONCURRENCY).
 */
public interface TokenDelivery extends AutoCloseable {

  /**
   * Delivers the records and returns one outcome per record, in the same order. A failure that
   * concerns the whole channel (stdout closed) throws {@link
   * dev.pginbox.inbox.HandlerAbortException} instead: the batch rolls back and the collector stops.
   */
  List<DeliveryOutcome> deliver(List<OutputRecord> records);

  /**
   * Why this channel cannot carry a record at all (the original line format has no escaping, so
   * stdout refuses a comma or line break inside a field), or empty when it can. Such a token is
   * skipped, as the original would have had to.
   */
  default Optional<String> unsupported(OutputRecord record) {
    return Optional.empty();
  }

  /** A short name for logs ({@code stdout}, {@code smtp}, {@code ses}). */
  String name();

  @Override
  default void close() {}
}
