-- The message a claim of one could not read into memory (UnreadableMessage): claimed like any
-- message, with the same server-side bounds as claim.sql, but only its id and stored payload size
-- are read, so that its failed attempt can be recorded. With the lease guard of claim_guarded.sql
-- (its arguments NULL without automatic partitions: a rare path, one statement for every worker).
SELECT c.event_id, pg_column_size(c.payload)
FROM (SELECT set_config('idle_in_transaction_session_timeout', :serverBound, true) AS idle_bound,
             set_config('statement_timeout', :serverBound, true) AS statement_bound,
             inbox.lease_guard_buckets(:inbox, :workerId, :partitions::integer[],
                                       :partitionCount, :buckets::integer[]) AS buckets) AS s,
     LATERAL inbox.claim_<inbox>(1, s.buckets) AS c
WHERE cardinality(s.buckets) IS DISTINCT FROM 0
