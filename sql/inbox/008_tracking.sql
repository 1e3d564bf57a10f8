-- Bring-your-own-table inboxes: an inbox over an existing table that is never altered (no new
-- columns, indexes or triggers). The real schema and table are stored in inbox_config, so views,
-- health, status, replay, mark_processed/mark_failed, ordering, priority and retention all work
-- on the table by its real name through the column mapping.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Checks that a column of a table exists and belongs to one of some type categories
-- (pg_type.typcategory: S string, N numeric, D date/time, E enum, U user incl. uuid).
CREATE OR REPLACE FUNCTION inbox.require_table_column(
    p_table regclass, p_role text, p_column text, p_categories text[], p_types text[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_type text;
    v_category text;
BEGIN
    PERFORM inbox.check_column_name(p_column);
    SELECT format_type(a.atttypid, NULL), t.typcategory INTO v_type, v_category
    FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    WHERE a.attrelid = p_table AND a.attname = p_column AND a.attnum > 0 AND NOT a.attisdropped;
    IF v_type IS NULL THEN
        RAISE EXCEPTION 'column % (the % column) does not exist in %', quote_ident(p_column), p_role, p_table
            USING ERRCODE = 'undefined_column',
                  HINT = 'pass the real column name, or NULL for an optional column the table does not have';
    END IF;
    IF NOT (v_category = ANY (p_categories) OR v_type = ANY (coalesce(p_types, '{}'))) THEN
        RAISE EXCEPTION 'column % of % has type %, which cannot be the % column', quote_ident(p_column), p_table, v_type, p_role
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    RETURN v_type;
END;
$$;

-- An optional column of a tracked table: NULL stays NULL (not used); the standard name p_role is
-- used when the table has such a column and gives NULL otherwise; any other name must exist
-- (require_table_column). A column of the standard name but of an unusable type is an error.
CREATE OR REPLACE FUNCTION inbox.optional_table_column(
    p_table regclass, p_role text, p_column text, p_categories text[], p_types text[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_column IS NULL OR (p_column = p_role AND NOT EXISTS (
            SELECT 1 FROM pg_attribute a
            WHERE a.attrelid = p_table AND a.attname = p_column AND a.attnum > 0 AND NOT a.attisdropped)) THEN
        RETURN NULL;
    END IF;
    PERFORM inbox.require_table_column(p_table, p_role, p_column, p_categories, p_types);
    RETURN p_column;
END;
$$;

CREATE OR REPLACE FUNCTION inbox.enable_inbox_tracking(
    p_name                  text,
    p_table_ref             text,
    p_id_column             text DEFAULT 'event_id',
    p_processed_at_column   text DEFAULT 'processed_at',
    p_event_type_column     text DEFAULT 'event_type',
    p_received_at_column    text DEFAULT 'received_at',
    p_aggregate_column      text DEFAULT 'aggregate_id',
    p_retry_count_column    text DEFAULT 'retry_count',
    p_error_column          text DEFAULT 'error',
    p_max_retries           integer DEFAULT 3,
    -- NULL: purge_inbox never deletes from the table (it is the application's).
    p_retention_hours       integer DEFAULT NULL,
    p_dlq_retention_hours   integer DEFAULT 168,
    p_degraded_age_seconds  integer DEFAULT 30,
    p_critical_age_seconds  integer DEFAULT 120,
    p_degraded_pending      bigint DEFAULT 10000,
    p_critical_pending      bigint DEFAULT 100000)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_name text := inbox.check_inbox_name(p_name);
    v_table regclass;
    v_kind "char";
    v_schema text;
    v_relname text;
    v_taken text;
    v_received_at text;
    v_aggregate text;
    v_retry_count text;
    v_error text;
BEGIN
    IF p_max_retries IS NULL OR p_max_retries < 1 THEN
        RAISE EXCEPTION 'max retries must be at least 1, got %', p_max_retries USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_retention_hours < 0 OR p_dlq_retention_hours IS NULL OR p_dlq_retention_hours < 0 THEN
        RAISE EXCEPTION 'retention hours must not be negative' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_degraded_age_seconds IS NULL OR p_critical_age_seconds IS NULL OR p_degraded_pending IS NULL
       OR p_critical_pending IS NULL OR p_degraded_age_seconds < 0 OR p_degraded_pending < 0
       OR p_critical_age_seconds < p_degraded_age_seconds OR p_critical_pending < p_degraded_pending THEN
        RAISE EXCEPTION 'health thresholds must satisfy 0 <= degraded <= critical' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_table_ref IS NULL OR btrim(p_table_ref) = '' THEN
        RAISE EXCEPTION 'a table is required' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- to_regclass parses (never executes) the reference; malformed input is an error of its own.
    BEGIN
        v_table := to_regclass(p_table_ref);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'invalid table reference %', quote_literal(p_table_ref) USING ERRCODE = 'invalid_parameter_value';
    END;
    IF v_table IS NULL THEN
        RAISE EXCEPTION 'table % does not exist', quote_literal(p_table_ref) USING ERRCODE = 'undefined_table';
    END IF;
    SELECT c.relkind, n.nspname, c.relname INTO v_kind, v_schema, v_relname
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = v_table;
    IF v_kind NOT IN ('r', 'p') THEN
        RAISE EXCEPTION '% is not a table', v_table USING ERRCODE = 'wrong_object_type';
    END IF;
    -- The inbox's own catalog and the system catalogs are never an inbox: retention would delete
    -- from them and mark_* would rewrite them. (A new catalog table of schema inbox joins the list.)
    IF (v_schema = 'inbox' AND v_relname IN ('inbox_config', 'inbox_ordering_config', 'inbox_priority_config',
                                             'inbox_workers', 'inbox_partition_leases', 'inbox_grants'))
       OR v_schema IN ('pg_catalog', 'information_schema', 'pg_toast') THEN
        RAISE EXCEPTION '% is a catalog table and cannot be tracked as an inbox', v_table
            USING ERRCODE = 'invalid_parameter_value';
    END IF;

    PERFORM inbox.require_table_column(v_table, 'id', p_id_column, ARRAY['S', 'U'], ARRAY['bigint', 'integer']);
    PERFORM inbox.require_table_column(v_table, 'processed_at', p_processed_at_column, ARRAY[]::text[],
        ARRAY['timestamp with time zone', 'timestamp without time zone']);
    PERFORM inbox.require_table_column(v_table, 'event_type', p_event_type_column, ARRAY['S', 'E']);
    -- An optional column left at its standard name is used when the table has it and skipped
    -- otherwise (inbox_status lists what that turns off); any other name must exist.
    v_received_at := inbox.optional_table_column(v_table, 'received_at', p_received_at_column, ARRAY[]::text[],
        ARRAY['timestamp with time zone', 'timestamp without time zone']);
    v_aggregate := inbox.optional_table_column(v_table, 'aggregate_id', p_aggregate_column, ARRAY['S', 'U', 'N']);
    v_retry_count := inbox.optional_table_column(v_table, 'retry_count', p_retry_count_column, ARRAY[]::text[],
        ARRAY['smallint', 'integer', 'bigint']);
    v_error := inbox.optional_table_column(v_table, 'error', p_error_column, ARRAY['S']);

    PERFORM inbox.lock_catalog();
    IF EXISTS (SELECT 1 FROM inbox.inbox_config WHERE inbox_name = v_name) THEN
        RAISE EXCEPTION 'inbox % already exists', quote_literal(v_name) USING ERRCODE = 'duplicate_object';
    END IF;
    SELECT inbox_name INTO v_taken FROM inbox.inbox_config WHERE table_schema = v_schema AND table_name = v_relname;
    IF FOUND THEN
        RAISE EXCEPTION 'table % already belongs to inbox %', v_table, quote_literal(v_taken) USING ERRCODE = 'duplicate_object';
    END IF;
    PERFORM inbox.check_free_names(v_name);

    INSERT INTO inbox.inbox_config (inbox_name, table_schema, table_name, managed, max_retries,
        processed_retention, dlq_retention, retention_enabled,
        degraded_age_seconds, critical_age_seconds, degraded_pending, critical_pending, notify_channel,
        id_column, event_type_column, processed_at_column, received_at_column, aggregate_column,
        retry_count_column, error_column)
    VALUES (v_name, v_schema, v_relname, false, p_max_retries,
        make_interval(hours => coalesce(p_retention_hours, 72)), make_interval(hours => p_dlq_retention_hours),
        p_retention_hours IS NOT NULL,
        p_degraded_age_seconds, p_critical_age_seconds, p_degraded_pending, p_critical_pending, 'inbox_' || v_name,
        p_id_column, p_event_type_column, p_processed_at_column, v_received_at, v_aggregate,
        v_retry_count, v_error);

    PERFORM inbox.rebuild_inbox_objects(v_name);
    PERFORM inbox.log_operator_action('enable_tracking', v_name, jsonb_build_object('table', p_table_ref), NULL);
END;
$$;
