-- The failed attempts of a shard's claim, in its transaction on the shard's node: one
-- inbox.fail_in_shard per failure, all in one statement (one round trip), in the order given.
-- result: 'retry', 'dead', or NULL when the message was no longer this transaction's.
SELECT f.event_id,
       inbox.fail_in_shard(:shard, f.aggregate_id, f.event_id, f.error, f.delay, f.dead,
                           :maxRetries::integer, :backoffBase::interval, :backoffMax::interval) AS result
FROM unnest(:aggregateIds::text[], :eventIds::text[], :errors::text[], :delays::interval[],
            :dead::boolean[]) WITH ORDINALITY AS f(aggregate_id, event_id, error, delay, dead, n)
ORDER BY f.n
