package dev.pginbox.inbox.postgres.internal.worker.batch;

/**
 * The limit of a processor's next claim: at most the batch size; halved after a batch too big to
 * read in memory, near the last batch's size after a short one (see {@link #afterBatch}).
 */
public final class ClaimLimit {

  private final int batchSize;
  private int limit;

  public ClaimLimit(int batchSize) {
    this.batchSize = batchSize;
    this.limit = batchSize;
  }

  public int current() {
    return limit;
  }

  /**
   * After a batch that went well, of {@code claimed} messages out of {@code granted}. On an ordered
   * inbox where any waiting message makes a batch ({@code claimsOnShortBatch}), a batch that got at
   * most half its limit sets the next limit to a quarter more than it got, and one that got more
   * keeps the limit, so that workers sharing the heads each claim about their share: a claim of the
   * whole batch walks past the heads the other workers hold, and the followers behind those, to the
   * end of its window, several head tests for every message it gets (docs/performance.md, "Ordered
   * claim"). Claims that fill more than half their limit keep it, as a smaller claim costs a commit
   * more per batch. Otherwise (a full batch, or a short one on a plain inbox or under a batch
   * timeout) the limit doubles, back to the batch size; an empty batch says nothing.
   */
  public void afterBatch(int claimed, int granted, boolean claimsOnShortBatch) {
    if (claimed == 0) {
      return;
    }
    if (claimed < granted && claimsOnShortBatch) {
      if (claimed * 2 <= granted) {
        limit = Math.min(batchSize, claimed + claimed / 4 + 1);
      }
      return;
    }
    limit = Math.min(batchSize, limit * 2);
  }

  /**
   * A batch too big to read: smaller claims until one fits (down to one message); after successful
   * claims the limit grows back to the batch size. Returns the new limit.
   */
  public int halve() {
    limit = Math.max(1, limit / 2);
    return limit;
  }
}
