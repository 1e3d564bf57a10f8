-- Serialises concurrent installers (two services starting at once). The lock is on
-- inbox.catalog_lock, which only its owner can lock;
-- an advisory lock, which any role that can connect could take and hold forever, serves only the
-- very first install, when there is no catalog yet. PostgresInboxManager.install() and the
-- mailroom's installer take it through this file too.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $$
BEGIN
    IF pg_catalog.to_regclass('inbox.catalog_lock') IS NOT NULL THEN
        LOCK TABLE inbox.catalog_lock IN EXCLUSIVE MODE;
    ELSIF pg_catalog.to_regclass('inbox.inbox_config') IS NOT NULL THEN
        -- Installed by a version without catalog_lock, whose catalog changes lock inbox_config.
        LOCK TABLE inbox.inbox_config IN SHARE ROW EXCLUSIVE MODE;
    ELSE
        PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('inbox.install', 0));
    END IF;
END
$$;
