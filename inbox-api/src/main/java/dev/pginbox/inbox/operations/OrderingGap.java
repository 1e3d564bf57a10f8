package dev.pginbox.inbox.operations;

import java.util.Locale;

/**
 * One finding of {@code inbox.inbox_ordering_gaps}.
 *
 * @param eventId the message the finding is about
 * @param sequence its sequence value as text
 * @param previousSequence the sequence it was compared with (previous message, or the last
 *     processed one), or null
 */
public record OrderingGap(
    String aggregateId,
    Issue issue,
    String eventId,
    String sequence,
    String previousSequence,
    String detail) {

  public enum Issue {
    /** Integer sequence: values are missing before this message. */
    SEQUENCE_GAP,
    /** Integer sequence: the same value as the previous message. */
    DUPLICATE_SEQUENCE,
    /** Unprocessed, but a later message of the aggregate was already processed. */
    OUT_OF_ORDER,
    /** The aggregate's next message is a dead letter and later messages wait behind it. */
    BLOCKED_BY_DEAD_LETTER;

    /** The issue of the SQL result ({@code 'sequence_gap'}, ...). */
    public static Issue fromSql(String value) {
      return valueOf(value.toUpperCase(Locale.ROOT));
    }
  }
}
