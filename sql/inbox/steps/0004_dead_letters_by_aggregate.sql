-- Step 4: the head test of an inbox ordered by seq starts at the claim floors, passing over the
-- messages processed while the xmin horizon is held, and finds the dead letters below them through
-- a new index of each aggregate's dead letters, <name>_ordering_dead_idx (definitions/ordering.sql,
-- inbox.earlier_unprocessed_sql). The test's SQL function gained its floor and dead-letter
-- arguments, so the old form goes; moving the schema version regenerates every inbox's objects
-- (rebuild_inboxes.sql), which creates the index and the claim functions that use it.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $step$
BEGIN
    IF NOT inbox.begin_step(4, 'dead_letters_by_aggregate') THEN
        RETURN;
    END IF;
    -- Gained p_floor and p_dead (with defaults).
    DROP FUNCTION IF EXISTS inbox.earlier_unprocessed_sql(text, text, text, text, text, text);
END;
$step$;
