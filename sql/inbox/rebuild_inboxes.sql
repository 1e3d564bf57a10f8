-- Per-inbox upgrade, last on purpose: regenerates the derived objects (priority and claim
-- functions, indexes, triggers, views: see definitions/create_inbox.sql) of every inbox whose
-- objects_version is behind inbox.schema_version(), from the definitions installed above; NULL is
-- an inbox of release 0.1.0. Tables and their data are not touched. Every other inbox only gets its
-- send function and grants again (inbox.apply_inbox_grants), so that a group role created since
-- the last install gets its privileges. To regenerate one inbox regardless of its version:
-- SELECT inbox.rebuild_inbox_objects('name').

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $$
DECLARE
    v_inbox text;
    v_behind boolean;
BEGIN
    FOR v_inbox, v_behind IN
        SELECT c.inbox_name, coalesce(c.objects_version < inbox.schema_version(), true)
        FROM inbox.inbox_config c ORDER BY c.inbox_name
    LOOP
        IF v_behind THEN
            PERFORM inbox.rebuild_inbox_objects(v_inbox);
        ELSE
            PERFORM inbox.apply_inbox_grants(v_inbox);
        END IF;
    END LOOP;
END;
$$;
