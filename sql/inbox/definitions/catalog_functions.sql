-- Catalog of inboxes. Every statement is idempotent: the installer also upgrades.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;
CREATE SCHEMA IF NOT EXISTS inbox;

-- The version of the SQL API these files install: 1 was release 0.1.0 (which did not record it),
-- 2 the first to record it. Installing over a newer version is refused (its functions would be
-- replaced by older ones), so the number is checked before it is replaced.
DO $$
DECLARE
    v_installed integer;
BEGIN
    IF to_regprocedure('inbox.schema_version()') IS NOT NULL THEN
        EXECUTE 'SELECT inbox.schema_version()' INTO v_installed;
    END IF;
    IF v_installed > 2 THEN
        RAISE EXCEPTION 'the inbox SQL API in this database has schema version %, newer than these files (2)', v_installed
            USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'install the newer release''s SQL';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION inbox.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 2;

CREATE TABLE IF NOT EXISTS inbox.inbox_config (
    inbox_name              text PRIMARY KEY,
    -- The table that holds the messages: inbox.<inbox_name> for a managed inbox,
    -- the user's own table for a tracked one (enable_inbox_tracking).
    table_schema            text NOT NULL,
    table_name              text NOT NULL,
    managed                 boolean NOT NULL,
    max_retries             integer NOT NULL DEFAULT 3 CHECK (max_retries >= 1),
    processed_retention     interval NOT NULL DEFAULT interval '72 hours',
    dlq_retention           interval NOT NULL DEFAULT interval '168 hours',
    -- How long the event_id of a processed message keeps deduplicating redeliveries.
    -- NULL = as long as processed_retention. Longer: retention first strips the payload,
    -- then deletes the row once dedup_retention has passed too.
    dedup_retention         interval,
    backoff_base            interval NOT NULL DEFAULT interval '1 second',
    backoff_max             interval NOT NULL DEFAULT interval '5 minutes',
    -- inbox_health thresholds.
    degraded_age_seconds    integer NOT NULL DEFAULT 30,
    critical_age_seconds    integer NOT NULL DEFAULT 120,
    degraded_pending        bigint  NOT NULL DEFAULT 10000,
    critical_pending        bigint  NOT NULL DEFAULT 100000,
    degraded_dlq            bigint  NOT NULL DEFAULT 1,
    -- LISTEN/NOTIFY channel that one statement-level trigger notifies per INSERT statement.
    notify_channel          text NOT NULL,
    -- Column mapping. A managed inbox uses the standard names; a tracked table may differ.
    id_column               text NOT NULL DEFAULT 'event_id',
    event_type_column       text NOT NULL DEFAULT 'event_type',
    processed_at_column     text NOT NULL DEFAULT 'processed_at',
    received_at_column      text DEFAULT 'received_at',
    aggregate_column        text DEFAULT 'aggregate_id',
    retry_count_column      text DEFAULT 'retry_count',
    error_column            text DEFAULT 'error',
    created_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (table_schema, table_name)
);

-- Added after the first layout; ADD COLUMN IF NOT EXISTS keeps the installer an upgrader.
-- false: purge_inbox never deletes from this inbox's table (the default for tracked tables,
-- which belong to the application).
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS retention_enabled boolean NOT NULL DEFAULT true;
-- purge_inbox strips payload/error of processed rows in processed_at order; it remembers how far
-- it got so that rows it already stripped are not read again on every call.
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS stripped_until timestamptz NOT NULL DEFAULT '-infinity';
-- The schema version whose generators made the inbox's derived objects (rebuild_inbox_objects);
-- NULL: made by release 0.1.0, which did not record it.
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS objects_version integer;
-- The largest payload (bytes, as pg_column_size of the jsonb value) an insert may bring; NULL: no
-- limit. Managed inboxes only (inbox.set_max_payload_size).
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS max_payload_bytes integer CHECK (max_payload_bytes >= 1);
-- A tracked table's payload column (jsonb or json), handed to handlers; NULL: none.
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS payload_column text;
-- A tracked table with a notification trigger (enable_inbox_tracking(p_notify => true)); a managed
-- inbox always has one.
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS notify_trigger boolean NOT NULL DEFAULT false;
-- A tracked table's privileges before tracking granted the inbox's roles theirs, as
-- {"table": aclitem[] as text[], "columns": {"column": aclitem[] as text[]}}; drop_inbox puts them
-- back (inbox.restore_tracked_privileges). NULL: tracked by a version that did not record them.
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS tracked_privileges jsonb;
-- Since when consumption is paused (inbox.pause_inbox); NULL: it is not.
ALTER TABLE inbox.inbox_config ADD COLUMN IF NOT EXISTS paused_at timestamptz;

CREATE TABLE IF NOT EXISTS inbox.inbox_ordering_config (
    inbox_name          text PRIMARY KEY REFERENCES inbox.inbox_config ON DELETE CASCADE,
    aggregate_column    text NOT NULL,
    sequence_column     text NOT NULL,
    enabled_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS inbox.inbox_priority_config (
    inbox_name          text PRIMARY KEY REFERENCES inbox.inbox_config ON DELETE CASCADE,
    priority_column     text NOT NULL,
    priority_map        jsonb NOT NULL,
    default_priority    integer NOT NULL DEFAULT 999,
    enabled_at          timestamptz NOT NULL DEFAULT now()
);

-- Workers of the automatic partition mode: one row per live worker, kept alive by heartbeats.
CREATE TABLE IF NOT EXISTS inbox.inbox_workers (
    inbox_name          text NOT NULL REFERENCES inbox.inbox_config ON DELETE CASCADE,
    worker_id           text NOT NULL,
    heartbeat_at        timestamptz NOT NULL DEFAULT now(),
    started_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (inbox_name, worker_id)
);

-- Partition leases of the automatic mode: a partition has at most one owner whose lease is live.
CREATE TABLE IF NOT EXISTS inbox.inbox_partition_leases (
    inbox_name          text NOT NULL REFERENCES inbox.inbox_config ON DELETE CASCADE,
    partition_id        integer NOT NULL,
    owner_id            text,
    lease_expires_at    timestamptz NOT NULL DEFAULT '-infinity',
    PRIMARY KEY (inbox_name, partition_id)
);

-- The lock that serialises catalog changes (inbox.lock_catalog) and installs (000_install_lock.sql):
-- a table without rows or privileges, so that only its owner can lock it. Locking inbox_config
-- itself let any role that may update a catalog column (consumers, for retention) hold a mode
-- that blocked create_inbox, by leaving a transaction open after an UPDATE.
CREATE TABLE IF NOT EXISTS inbox.catalog_lock ();
REVOKE ALL ON inbox.catalog_lock FROM PUBLIC;

-- The audit trail. Rows are written only through inbox.log_operator_action (SECURITY DEFINER, below),
-- so a role that may replay or purge needs no write access to the log itself. No foreign key to
-- inbox_config: the log outlives a dropped inbox.
CREATE TABLE IF NOT EXISTS inbox.operator_log (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    logged_at           timestamptz NOT NULL DEFAULT now(),
    -- The database login (session_user) and the name a tool authenticated (the transaction
    -- setting inbox.actor, e.g. the console's user); a psql session has no actor.
    role_name           text NOT NULL,
    actor               text,
    application_name    text,
    client_addr         inet,
    action              text NOT NULL,
    inbox_name          text,
    arguments           jsonb NOT NULL DEFAULT '{}',
    rows_affected       bigint
);
CREATE INDEX IF NOT EXISTS operator_log_inbox_idx ON inbox.operator_log (inbox_name, id);

-- Writes one audit row. Arguments larger than 8 kB (a replay of 40,000 event ids) are kept as
-- their first 8 kB, marked truncated, so the log stays small.
-- Only the audited functions write the log: they run as the schema's owner (SECURITY DEFINER:
-- the operator actions, inbox.acted_on_by_caller) or only its owner may call them (create_inbox,
-- the enable_* functions, grant_inbox); EXECUTE is nobody else's, so no role can write "alice
-- replayed 42 rows" itself.
-- What is recorded and how far it is trusted (docs/security.md, "The audit log"): role_name is the
-- session's login role (session_user), which PostgreSQL authenticated; actor is the transaction
-- setting inbox.actor, which the console and the Actuator endpoint set to the user they
-- authenticated, and which any session of the role could set to anything: it is the role's claim.
CREATE OR REPLACE FUNCTION inbox.log_operator_action(p_action text, p_inbox text, p_arguments jsonb, p_rows bigint)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO inbox.operator_log (role_name, actor, application_name, client_addr, action, inbox_name,
                                    arguments, rows_affected)
    VALUES (session_user,
            left(nullif(current_setting('inbox.actor', true), ''), 200),
            left(nullif(current_setting('application_name', true), ''), 200),
            inet_client_addr(),
            p_action, p_inbox,
            CASE WHEN length(coalesce(p_arguments, '{}')::text) > 8192
                 THEN jsonb_build_object('truncated', true, 'text', left(p_arguments::text, 8192))
                 ELSE coalesce(p_arguments, '{}') END,
            p_rows);
END;
$$;
REVOKE EXECUTE ON FUNCTION inbox.log_operator_action(text, text, jsonb, bigint) FROM PUBLIC;

-- Workers of every mode (all buckets, static or automatic partitions) announce themselves here
-- at each gauge refresh; inbox_workers() reads it. Rows of workers silent for an hour are removed
-- by the next announcement of any worker of the inbox.
CREATE TABLE IF NOT EXISTS inbox.inbox_worker_registry (
    inbox_name          text NOT NULL REFERENCES inbox.inbox_config ON DELETE CASCADE,
    worker_id           text NOT NULL,
    -- host, pid, assignment ("all", "static", "automatic"), partition, partitions, concurrency,
    -- claim_ahead, interval_seconds, spread (see inbox.worker_peers)
    details             jsonb NOT NULL DEFAULT '{}',
    application_name    text,
    backend_pid         integer,
    started_at          timestamptz NOT NULL DEFAULT now(),
    heartbeat_at        timestamptz NOT NULL DEFAULT now(),
    stopped_at          timestamptz,
    PRIMARY KEY (inbox_name, worker_id)
);
