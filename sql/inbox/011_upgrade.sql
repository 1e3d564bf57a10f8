-- Upgrade step, last on purpose: regenerate every inbox's derived objects (claim function, views)
-- from the definitions installed above, so an inbox created by an older version gets the current
-- claim and views when install.sql is re-run. Tables and their data are not touched.
DO $$
BEGIN
    PERFORM inbox.rebuild_inbox_objects(inbox_name) FROM inbox.inbox_config ORDER BY inbox_name;
END;
$$;
