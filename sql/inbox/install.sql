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
\ir 000_install_lock.sql
\ir 001_catalog.sql
\ir 002_names_and_hashing.sql
\ir 003_create_inbox.sql
\ir 004_consume.sql
\ir 005_operations.sql
\ir 006_ordering.sql
\ir 007_priority.sql
\ir 008_tracking.sql
\ir 009_workers.sql
\ir 010_roles.sql
\ir 011_upgrade.sql
\ir 012_operator_views.sql
COMMIT;
