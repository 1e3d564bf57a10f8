-- Step 6: a tracked table may name an arrival column, a NOT NULL integer column its INSERTs fill
-- from a sequence (identity or serial). Its claim then walks that column from the session's claim
-- floors, past the entries of messages claimed while the xmin horizon is held, as a managed
-- inbox's claim walks seq (definitions/tracking.sql, definitions/consume.sql). enable_inbox_tracking
-- gained p_arrival_column, so its old form goes.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $step$
BEGIN
    IF NOT inbox.begin_step(6, 'tracked_arrival_column') THEN
        RETURN;
    END IF;
    -- A tracked table's arrival column (enable_inbox_tracking(p_arrival_column)); NULL: none, the
    -- claim order is received_at, then the id. Always NULL for a managed inbox (its seq).
    ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS arrival_column text;
    DROP FUNCTION IF EXISTS inbox.enable_inbox_tracking(text, text, text, text, text, text, text, text, text,
        integer, integer, integer, integer, integer, bigint, bigint, text, boolean);
END;
$step$;
