-- The claim of one shard of a distributed inbox (inbox.claim_shard), run on the node that holds
-- it, plus the server-side bound of its transaction in the same statement, as claim.sql sets it:
-- the subquery is evaluated first (the claim takes its limit from it) and, being volatile, is
-- neither pulled up nor pruned. :sequenceColumn is the inbox's ordering column (NULL: unordered).
-- processed_at is the claim's mark (now()); the last error is not read on this path.
SELECT c.*, now() AS processed_at, NULL::text AS error
FROM (SELECT :limit::integer AS lim,
             set_config('idle_in_transaction_session_timeout', :serverBound, true) AS idle_bound,
             set_config('statement_timeout', :serverBound, true) AS statement_bound) AS s,
     LATERAL inbox.claim_shard(:shard, s.lim, :maxRetries::integer, :sequenceColumn::text) AS c
