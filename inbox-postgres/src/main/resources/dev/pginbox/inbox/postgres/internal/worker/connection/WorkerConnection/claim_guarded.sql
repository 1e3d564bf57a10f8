-- claim.sql for a worker with automatic partitions: the same claim, with the lease guard in the
-- same statement (inbox.lease_guard_buckets: locks the leases, then returns the buckets to claim
-- from), evaluated in the subquery before the claim, so the guard costs no round trip of its own.
-- A guard that finds no lease left skips the claim (an empty bucket set would otherwise walk the
-- whole claim index finding nothing). Workers without automatic partitions send claim.sql itself.
SELECT c.*
FROM (SELECT :limit::integer AS lim,
             set_config('idle_in_transaction_session_timeout', :serverBound, true) AS idle_bound,
             set_config('statement_timeout', :serverBound, true) AS statement_bound,
             inbox.lease_guard_buckets(:inbox, :workerId, :partitions::integer[],
                                       :partitionCount, :buckets::integer[]) AS buckets) AS s,
     LATERAL inbox.claim_<inbox>(s.lim, s.buckets, :maxBatchBytes::bigint, :lowerPriority,
                                    :perAggregate::integer) AS c
WHERE cardinality(s.buckets) IS DISTINCT FROM 0
