-- Ends a timed-out batch of a shard in its own transaction on the shard's node (rows still
-- locked), as end_timed_out_batch.sql does on a single server: the failures recorded
-- (inbox.fail_in_shard, as fail_in_shard.sql), the untouched messages given back without a failed
-- attempt (inbox.release_in_shard), commit. Sent as one unit; the runtime puts "ROLLBACK TO
-- SAVEPOINT" in front when the running part had one.
SELECT f.event_id,
       inbox.fail_in_shard(:shard, f.aggregate_id, f.event_id, f.error, f.delay, f.dead,
                           :maxRetries::integer, :backoffBase::interval, :backoffMax::interval) AS result
FROM unnest(:aggregateIds::text[], :eventIds::text[], :errors::text[], :delays::interval[],
            :dead::boolean[]) WITH ORDINALITY AS f(aggregate_id, event_id, error, delay, dead, n)
ORDER BY f.n;
SELECT inbox.release_in_shard(:shard, :giveBackAggregateIds::text[], :giveBack::text[]);
COMMIT
