-- Installs or upgrades the inbox SQL API in schema "inbox". Safe to run again.
--
--   psql -v ON_ERROR_STOP=1 -f sql/inbox/install.sql
--
-- InboxManager.install() applies the same files, in the same order, in one transaction
-- (it reads the \ir lines below).
\set ON_ERROR_STOP 1
BEGIN;
-- Built-ins and schema-qualified names only, whatever the installing session's search_path:
-- objects that untrusted roles create in public never run with the installer's rights.
SET LOCAL search_path = pg_catalog, pg_temp;
-- Re-running prints a NOTICE per existing object otherwise.
SET LOCAL client_min_messages = warning;
\ir install_lock.sql
\ir definitions/catalog_functions.sql
\ir definitions/names_and_hashing.sql
\ir definitions/create_inbox.sql
\ir definitions/consume.sql
\ir definitions/operations.sql
\ir definitions/ordering.sql
\ir definitions/priority.sql
\ir definitions/tracking.sql
\ir definitions/workers.sql
\ir definitions/roles.sql
\ir rebuild_inboxes.sql
\ir definitions/operator_views.sql
COMMIT;
