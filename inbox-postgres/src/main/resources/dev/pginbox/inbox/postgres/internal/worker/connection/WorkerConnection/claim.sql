-- The claim, plus the server-side bound of its transaction in the same statement (no extra round
-- trip): SET LOCAL idle_in_transaction_session_timeout and statement_timeout, so a transaction
-- whose JVM froze or lost the network is ended by the server even when the in-JVM watchdog cannot
-- act. set_config(..., true) lasts until commit or rollback, so it also works through PgBouncer
-- transaction pooling. The subquery is evaluated first (claim_ takes its limit from it) and, being
-- volatile, is neither pulled up nor pruned. The last arguments are the batch's byte budget (NULL:
-- none), whether this batch goes to the priorities below the top (lowerPriorityEvery) and the
-- messages one aggregate may have in it (messagesPerAggregate).
-- For a handler that writes, the runtime sends it followed by the savepoint of the handler's first
-- part, in the same round trip (WorkerConnection.claimAndSavepoint).
SELECT c.*
FROM (SELECT :limit::integer AS lim,
             set_config('idle_in_transaction_session_timeout', :serverBound, true) AS idle_bound,
             set_config('statement_timeout', :serverBound, true) AS statement_bound) AS s,
     LATERAL inbox.claim_<inbox>(s.lim, :buckets::integer[], :maxBatchBytes::bigint, :lowerPriority,
                                    :perAggregate::integer) AS c
