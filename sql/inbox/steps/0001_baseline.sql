-- Step 1, the baseline: the tables of release 0.1.0 and what was added to them before steps were
-- recorded. Written so that it also brings a database installed from 0.1.0 (which has no ledger)
-- up to date: every table IF NOT EXISTS, every later column ADD COLUMN IF NOT EXISTS. A released
-- step is never edited again (sql/README.md).

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

DO $step$
BEGIN
    IF NOT inbox.begin_step(1, 'baseline') THEN
        RETURN;
    END IF;

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

    -- Added after release 0.1.0; ADD COLUMN IF NOT EXISTS adds them to a table of that release.
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

    -- The lock that serialises catalog changes (inbox.lock_catalog) and installs (install_lock.sql):
    -- a table without rows or privileges, so that only its owner can lock it. Locking inbox_config
    -- itself let any role that may update a catalog column (consumers, for retention) hold a mode
    -- that blocked create_inbox, by leaving a transaction open after an UPDATE.
    CREATE TABLE IF NOT EXISTS inbox.catalog_lock ();
    REVOKE ALL ON inbox.catalog_lock FROM PUBLIC;

    -- The audit trail. Rows are written only through inbox.log_operator_action (SECURITY DEFINER,
    -- definitions/catalog_functions.sql), so a role that may replay or purge needs no write access
    -- to the log itself. No foreign key to inbox_config: the log outlives a dropped inbox.
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

    -- Roles given one kind of access to one inbox by inbox.grant_inbox (the group roles are not listed:
    -- they get every inbox).
    CREATE TABLE IF NOT EXISTS inbox.inbox_grants (
        inbox_name  text NOT NULL REFERENCES inbox.inbox_config ON DELETE CASCADE,
        role_name   text NOT NULL,
        kind        text NOT NULL CHECK (kind IN ('producer', 'consumer', 'operator', 'reader')),
        granted_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (inbox_name, role_name, kind)
    );

    -- Replays of dead letters below the claim floors move this counter (inbox.reset_claim_floors);
    -- every session's floors start again from the start of their levels when it moves. Its value is
    -- no secret (anyone may read it); operators move it.
    CREATE SEQUENCE IF NOT EXISTS inbox.claim_floor_resets;
    GRANT SELECT ON SEQUENCE inbox.claim_floor_resets TO PUBLIC;
END;
$step$;
