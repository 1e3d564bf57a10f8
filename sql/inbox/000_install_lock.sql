-- Serialises concurrent installers (two services starting at once). The lock is the catalog
-- table's, which only roles that may write the catalog (its owner) can hold in a conflicting mode;
-- an advisory lock, which any role that can connect could take and hold forever, serves only the
-- very first install, when there is no catalog yet. PostgresInboxManager.install() and the
-- mailroom's installer take it through this file too.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $$
BEGIN
    IF pg_catalog.to_regclass('inbox.inbox_config') IS NOT NULL THEN
        LOCK TABLE inbox.inbox_config IN SHARE ROW EXCLUSIVE MODE;
    ELSE
        PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('inbox.install', 0));
    END IF;
END
$$;
