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
DO $$ BEGIN PERFORM pg_advisory_xact_lock(hashtextextended('mailroom.install', 0)); END $$;
-- Re-running prints a NOTICE per existing object otherwise.
SET LOCAL client_min_messages = warning;
\ir 001_schema.sql
\ir 002_triggers.sql
\ir 003_inbox.sql
\ir 004_password_recovery.sql
\ir 005_migrate_jobs_cursor.sql
COMMIT;
