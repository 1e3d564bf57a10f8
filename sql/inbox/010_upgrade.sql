-- Upgrade step, last on purpose: regenerate every inbox's derived objects (priority and claim
-- functions, indexes, trigger, views: see 003_create_inbox.sql) from the definitions installed
-- above, so an inbox made by any earlier version gets the current ones when install.sql is re-run.
-- Tables and their data are not touched. inbox_config.objects_version then shows
-- inbox.schema_version() for every inbox.
DO $$
BEGIN
    PERFORM inbox.rebuild_inbox_objects(inbox_name) FROM inbox.inbox_config ORDER BY inbox_name;
END;
$$;
