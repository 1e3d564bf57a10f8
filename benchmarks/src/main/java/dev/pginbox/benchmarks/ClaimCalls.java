package dev.pginbox.benchmarks;

/**
 * Calls of claim_&lt;inbox&gt; and the server time they took, from pg_stat_user_functions (zeros
 * unless the server runs with track_functions = 'pl'): how many claims a drain took, how full they
 * came back, and what one cost.
 */
record ClaimCalls(long calls, double totalMs) {
  static final ClaimCalls NONE = new ClaimCalls(0, 0);

  static ClaimCalls read(BenchDatabase db, String inbox) {
    // A worker's backend reports its counts when it exits, shortly after its connection closes.
    ClaimCalls last = null;
    for (int i = 0; i < 20; i++) {
      ClaimCalls now =
          db.jdbi.withHandle(
              h ->
                  h.createQuery(
                          "SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(total_time), 0) AS ms "
                              + "FROM pg_stat_user_functions WHERE schemaname = 'inbox' AND funcname = :f")
                      .bind("f", "claim_" + inbox)
                      .map((rs, ctx) -> new ClaimCalls(rs.getLong("calls"), rs.getDouble("ms")))
                      .one());
      if (now.equals(last)) {
        return now;
      }
      last = now;
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return now;
      }
    }
    return last;
  }

  ClaimCalls plus(ClaimCalls o) {
    return new ClaimCalls(calls + o.calls, totalMs + o.totalMs);
  }

  ClaimCalls minus(ClaimCalls o) {
    return new ClaimCalls(calls - o.calls, totalMs - o.totalMs);
  }

  String perRun(int runs) {
    return calls == 0 ? "-" : String.format("%,d", calls / runs);
  }

  String messagesPerCall(long messages) {
    return calls == 0 ? "-" : String.format("%.0f", (double) messages / calls);
  }

  String msPerCall() {
    return calls == 0 ? "-" : String.format("%.1f", totalMs / calls);
  }
}
