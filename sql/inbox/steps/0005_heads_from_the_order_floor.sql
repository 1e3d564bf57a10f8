-- Step 5: on an inbox ordered by seq, the walks over every aggregate's head (phase 2 of the
-- ordered claim, count_waiting, the blocked aggregates of health) start at the order floor within
-- each aggregate, passing over the messages processed while the xmin horizon is held
-- (definitions/ordering.sql, inbox.aggregate_heads_sql), and the claim floors pass the messages a
-- dead letter holds back (definitions/consume.sql, inbox.advance_floors). Their SQL functions
-- gained arguments, so the old forms go; moving the schema version regenerates every inbox's objects
-- (rebuild_inboxes.sql), whose claim functions carry the new walk.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $step$
BEGIN
    IF NOT inbox.begin_step(5, 'heads_from_the_order_floor') THEN
        RETURN;
    END IF;
    -- Gained p_floor and p_dead (with defaults).
    DROP FUNCTION IF EXISTS inbox.aggregate_heads_sql(text, text, text);
    -- Gained p_floor and p_resets (with defaults).
    DROP FUNCTION IF EXISTS inbox.blocked_heads_sql(text);
    -- Gained p_pass_blocked and p_seq_aggregate (with defaults).
    DROP FUNCTION IF EXISTS inbox.advance_floors(text, varbit, integer[], text);
    DROP FUNCTION IF EXISTS inbox.advance_claim_floors(text, varbit, integer[]);
    DROP FUNCTION IF EXISTS inbox.claim_floors(text, varbit, integer[]);
END;
$step$;
