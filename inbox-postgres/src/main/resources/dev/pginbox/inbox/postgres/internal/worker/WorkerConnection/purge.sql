-- One elected worker at a time: a transaction-level advisory lock (works through PgBouncer
-- transaction pooling, unlike a session lock). NULL when another worker is purging right now.
-- inbox.retention_sweep marks the call as the scheduled sweep: not an operator action to audit.
SELECT CASE WHEN pg_try_advisory_xact_lock(hashtextextended('inbox.retention:' || ?, 0))
             AND set_config('inbox.retention_sweep', 'on', true) = 'on'
            THEN inbox.purge_inbox(?, ?)::text END
