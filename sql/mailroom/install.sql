-- Installs or upgrades the mailroom schema (accounts, tokens, their triggers) and its inbox.
-- Safe to run again; run it AFTER the inbox SQL API:
--
--   psql -v ON_ERROR_STOP=1 -f sql/inbox/install.sql
--   psql -v ON_ERROR_STOP=1 -f sql/mailroom/install.sql
--
-- The inbox name and the notification channel default to "mailroom" and "token_insert" (the
-- original collector's MAILROOM_QUEUE_NAME / MAILROOM_CHANNEL_NAME). Other names are set with
-- session settings, e.g. PGOPTIONS='-c mailroom.queue_name=q2 -c mailroom.channel_name=ch2',
-- or by `java -jar mailroom-app.jar install` with the MAILROOM_* variables.
--
-- `mailroom-app install` applies the same files, in the same order, in one transaction.
\set ON_ERROR_STOP 1
BEGIN;
-- Built-ins and schema-qualified names only, whatever the installing session's search_path:
-- objects that untrusted roles create in public never run with the installer's rights.
SET LOCAL search_path = pg_catalog, pg_temp;
-- The inbox install's lock (sql/inbox/000_install_lock.sql), which only the owner can take, not an
-- advisory lock, which any role that can connect could hold; `mailroom-app install` takes it too.
LOCK TABLE inbox.catalog_lock IN EXCLUSIVE MODE;
-- Re-running prints a NOTICE per existing object otherwise.
SET LOCAL client_min_messages = warning;
\ir 001_schema.sql
\ir 002_triggers.sql
\ir 003_inbox.sql
\ir 004_password_recovery.sql
\ir 005_migrate_jobs_cursor.sql
COMMIT;
