-- Installs or upgrades the inbox SQL API in schema "inbox". Safe to run again.
--
--   psql -v ON_ERROR_STOP=1 -f sql/inbox/install.sql
--
-- In one transaction, under the install lock: the ledger, the steps the ledger does not have yet
-- (each records itself there, in order, once), every definition, then the derived objects of the
-- inboxes whose objects_version is behind. The rules for changing these files: sql/README.md.
--
-- InboxManager.install() applies the same files, in the same order, in one transaction
-- (it reads the \ir lines below); inbox-migrations maps them to Flyway and Liquibase.
\set ON_ERROR_STOP 1
BEGIN;
-- Built-ins and schema-qualified names only, whatever the installing session's search_path:
-- objects that untrusted roles create in public never run with the installer's rights.
SET LOCAL search_path = pg_catalog, pg_temp;
-- Re-running prints a NOTICE per existing object otherwise.
SET LOCAL client_min_messages = warning;
\ir install_lock.sql
\ir ledger.sql
\ir steps/0001_baseline.sql
\ir steps/0002_drop_functions_replaced_since_0_1_0.sql
\ir steps/0003_failure_history.sql
\ir steps/0004_dead_letters_by_aggregate.sql
\ir steps/0005_heads_from_the_order_floor.sql
\ir steps/0006_tracked_arrival_column.sql
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
\ir definitions/operator_views.sql
\ir definitions/citus.sql
\ir rebuild_inboxes.sql
COMMIT;
