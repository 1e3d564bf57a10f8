package dev.pginbox.inbox.operations;

import java.time.Instant;

/**
 * Dead letters with the same event type and normalised error ({@code inbox.inbox_dlq_groups}): the
 * error with numbers and ids replaced by {@code <n>} and {@code <id>}.
 *
 * @param firstSeen arrival of the oldest dead letter of the group
 * @param lastSeen arrival of the newest
 * @param exampleEventId one dead letter of the group, with its full error in {@code exampleError}
 * @param firstDiedAt when the first letter of the group died; null when all of them died before the
 *     inbox recorded death times
 * @param lastDiedAt when the last one died; null likewise
 */
public record DlqGroup(
    String eventType,
    String errorGroup,
    long count,
    Instant firstSeen,
    Instant lastSeen,
    String exampleEventId,
    String exampleError,
    Instant firstDiedAt,
    Instant lastDiedAt) {

  /** This group as a selection, for counting, replaying or discarding it. */
  public DeadLetterSelection selection() {
    return DeadLetterSelection.group(eventType, errorGroup);
  }
}
