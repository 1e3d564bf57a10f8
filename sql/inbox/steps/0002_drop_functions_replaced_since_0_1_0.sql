-- Step 2: the functions of release 0.1.0 that later versions replaced under another signature. A
-- CREATE OR REPLACE with other arguments adds an overload instead of replacing, which would make
-- every call of the shorter form ambiguous (or keep a function nothing calls), so they go.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $step$
BEGIN
    IF NOT inbox.begin_step(2, 'drop_functions_replaced_since_0_1_0') THEN
        RETURN;
    END IF;

    -- Gained p_stalled (with a default).
    DROP FUNCTION IF EXISTS inbox.oldest_pending_sql(inbox.inbox_config, text);
    -- Gained p_payload_column and p_notify.
    DROP FUNCTION IF EXISTS inbox.enable_inbox_tracking(text, text, text, text, text, text, text, text, text,
        integer, integer, integer, integer, integer, bigint, bigint);
    -- Partition locks are row locks on the lease rows now (definitions/workers.sql).
    DROP FUNCTION IF EXISTS inbox.partition_lock_key(text);
END;
$step$;
