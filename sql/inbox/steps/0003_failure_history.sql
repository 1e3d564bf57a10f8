-- Step 3: when and how a message failed. Every inbox keeps, next to its retry count and last error,
-- failing_since (the first failure since the message last waited clean: arrival or replay),
-- last_failed_at, died_at (when it became a dead letter) and attempts (its last five failed
-- attempts: attempt number, time and error cut to 500 characters). A managed inbox keeps them in
-- its table, a tracked one in its side table inbox.<name>_retry_state. Only the failure path writes
-- them (definitions/consume.sql, workers.sql, tracking.sql); nullable columns without a default
-- are added without rewriting a table. The operator functions whose results gained columns are
-- dropped here and created again by the definitions (definitions/operator_views.sql). Moving the
-- schema version also regenerates every inbox's objects (rebuild_inboxes.sql): the index of recent
-- failures (<name>_failed_idx) and the grants on the new columns.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $step$
DECLARE
    v_table text;
BEGIN
    IF NOT inbox.begin_step(3, 'failure_history') THEN
        RETURN;
    END IF;

    FOR v_table IN
        SELECT CASE WHEN c.managed THEN format('%I.%I', c.table_schema, c.table_name)
                    ELSE format('inbox.%I', c.inbox_name || '_retry_state') END
        FROM inbox.inbox_config c ORDER BY c.inbox_name
    LOOP
        -- A tracked inbox whose side table is not there yet gets it, with the columns, from the
        -- definitions (inbox.create_retry_state_table).
        IF to_regclass(v_table) IS NOT NULL THEN
            EXECUTE format('ALTER TABLE %s ADD COLUMN IF NOT EXISTS failing_since timestamptz,
                                       ADD COLUMN IF NOT EXISTS last_failed_at timestamptz,
                                       ADD COLUMN IF NOT EXISTS died_at timestamptz,
                                       ADD COLUMN IF NOT EXISTS attempts jsonb', v_table);
        END IF;
    END LOOP;

    -- Their results gained columns (died_at, attempts, blocked_since, behind_blocked, failed).
    DROP FUNCTION IF EXISTS inbox.find_messages(text, text, text, jsonb, integer);
    DROP FUNCTION IF EXISTS inbox.inbox_message(text, text);
    DROP FUNCTION IF EXISTS inbox.inbox_dlq_groups(text, integer);
    DROP FUNCTION IF EXISTS inbox.inbox_blocked_aggregates(text, integer);
    DROP FUNCTION IF EXISTS inbox.inbox_partition_lag(text);
    DROP FUNCTION IF EXISTS inbox.inbox_throughput(text, integer);
    -- Gained p_stalled (with a default).
    DROP FUNCTION IF EXISTS inbox.oldest_eligible(text, varbit);
END;
$step$;
