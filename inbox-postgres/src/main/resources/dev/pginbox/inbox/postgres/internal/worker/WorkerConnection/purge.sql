-- One elected worker at a time: a transaction-level advisory lock (works through PgBouncer
-- transaction pooling, unlike a session lock). NULL when another worker is purging right now.
SELECT CASE WHEN pg_try_advisory_xact_lock(hashtextextended('inbox.retention:' || ?, 0))
            THEN inbox.purge_inbox(?, ?)::text END
