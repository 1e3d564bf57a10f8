-- One retention step, or NULL when another worker is purging this inbox right now (one elected
-- sweeper per inbox through a row lock on its catalog row, held to the end of the transaction:
-- works through PgBouncer transaction pooling, and roles without privileges cannot hold it).
-- inbox.retention_sweep marks the call as the scheduled sweep: not an operator action to audit.
SELECT CASE WHEN set_config('inbox.retention_sweep', 'on', true) = 'on'
            THEN inbox.try_purge_inbox(:inbox, :batchSize)::text END
