-- The claim, plus the server-side bound of its transaction in the same statement (no extra round
-- trip): SET LOCAL idle_in_transaction_session_timeout and statement_timeout, so a transaction
-- whose JVM froze or lost the network is ended by the server even when the in-JVM watchdog cannot
-- act. set_config(..., true) lasts until commit or rollback, so it also works through PgBouncer
-- transaction pooling. The subquery is evaluated first (claim_ takes its limit from it) and, being
-- volatile, is neither pulled up nor pruned. It also runs the lease guard of automatic partitions
-- (inbox.lease_guard_buckets: the buckets to claim from, after locking the leases; the bound buckets
-- as they are without partitions), so a claim transaction in that mode needs no round trip of its
-- own for it; a guard that finds no lease left skips the claim (an empty bucket set would otherwise
-- walk the whole claim index finding nothing). The last arguments are the batch's byte budget
-- (NULL: none) and whether this batch goes to the priorities below the top (lowerPriorityEvery).
-- For a handler that writes, the runtime sends it followed by the savepoint of the handler's first
-- part, in the same round trip (WorkerConnection.claimAndSavepoint).
SELECT c.*
FROM (SELECT ?::integer AS lim,
             set_config('idle_in_transaction_session_timeout', ?, true) AS idle_bound,
             set_config('statement_timeout', ?, true) AS statement_bound,
             inbox.lease_guard_buckets(?, ?, ?::integer[], ?, ?::integer[]) AS buckets) AS s,
     LATERAL inbox.claim_<inbox>(s.lim, s.buckets, ?::bigint, ?) AS c
WHERE cardinality(s.buckets) IS DISTINCT FROM 0
