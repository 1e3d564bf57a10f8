-- Upgrade step, last on purpose: regenerate every inbox's derived objects (priority and claim
-- functions, indexes, trigger, views: see 003_create_inbox.sql) from the definitions installed
-- above, so an inbox made by any earlier version gets the current ones when install.sql is re-run.
-- Tables and their data are not touched. inbox_config.objects_version then shows
-- inbox.schema_version() for every inbox.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Generator helpers whose signature changed (they now take the inbox's catalog row).
DROP FUNCTION IF EXISTS inbox.replace_view(text, text);
DROP FUNCTION IF EXISTS inbox.create_index_if_missing(text, text, jsonb);
-- oldest_pending_sql gained p_stalled (with a default): the earlier overload would make every
-- two-argument call ambiguous.
DROP FUNCTION IF EXISTS inbox.oldest_pending_sql(inbox.inbox_config, text);
-- A template that was on main for a day (the ranked ordered claim, measured and reverted) and
-- never released: nothing calls it.
DROP FUNCTION IF EXISTS inbox.ordered_claim_window_template();
-- inbox_workers(text) gained the result columns concurrency and claim_ahead (2026-11-27), and
-- CREATE OR REPLACE (012_operator_views.sql) cannot change a result type: drop the earlier one.
-- A function that has them already is kept.
DO $$
BEGIN
    -- NULL (no such function yet) is not 0.
    IF strpos(pg_get_function_result(to_regprocedure('inbox.inbox_workers(text)')), 'claim_ahead') = 0 THEN
        DROP FUNCTION inbox.inbox_workers(text);
    END IF;
END;
$$;

DO $$
BEGIN
    PERFORM inbox.rebuild_inbox_objects(inbox_name) FROM inbox.inbox_config ORDER BY inbox_name;
END;
$$;
