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

-- The signature before p_payload_column and p_notify (schema version 2); a second overload would
-- make every call ambiguous.
DROP FUNCTION IF EXISTS inbox.enable_inbox_tracking(text, text, text, text, text, text, text, text, text,
    integer, integer, integer, integer, integer, bigint, bigint);

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
    p_critical_pending      bigint DEFAULT 100000,
    p_payload_column        text DEFAULT 'payload',
    -- true: a statement-level trigger on the table notifies workers of inserts (the one change
    -- the inbox makes to the table; drop_inbox removes it). false: workers poll.
    p_notify                boolean DEFAULT false,
    -- A NOT NULL integer column that every INSERT fills from its own sequence (an identity or
    -- serial column, sequence CACHE 1): the claim order's arrival instead of received_at and the
    -- id, and the column the claim floors bound, so that claims skip the messages claimed while
    -- the xmin horizon is held (inbox.check_arrival_column). NULL: none.
    p_arrival_column        text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_name text := inbox.check_inbox_name(p_name);
    v_table regclass;
    v_payload text;
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
    v_payload := inbox.optional_table_column(v_table, 'payload', p_payload_column, ARRAY[]::text[], ARRAY['jsonb', 'json']);
    PERFORM inbox.check_arrival_column(v_table, p_arrival_column);

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
        retry_count_column, error_column, payload_column, notify_trigger, tracked_privileges, arrival_column)
    VALUES (v_name, v_schema, v_relname, false, p_max_retries,
        make_interval(hours => coalesce(p_retention_hours, 72)), make_interval(hours => p_dlq_retention_hours),
        p_retention_hours IS NOT NULL,
        p_degraded_age_seconds, p_critical_age_seconds, p_degraded_pending, p_critical_pending, 'inbox_' || v_name,
        p_id_column, p_event_type_column, p_processed_at_column, v_received_at, v_aggregate,
        v_retry_count, v_error, v_payload, coalesce(p_notify, false),
        -- and the arrival column's sequence's, on which grant_inbox grants too
        inbox.table_privileges(v_table) || CASE WHEN p_arrival_column IS NULL THEN '{}'::jsonb
            ELSE jsonb_build_object('sequence', inbox.table_privileges(
                     pg_get_serial_sequence(v_table::text, p_arrival_column)::regclass) -> 'table') END,
        p_arrival_column);

    PERFORM inbox.rebuild_inbox_objects(v_name);
    PERFORM inbox.log_operator_action('enable_tracking', v_name, jsonb_build_object('table', p_table_ref), NULL);
END;
$$;

-- A tracked table's arrival column (enable_inbox_tracking's p_arrival_column; NULL passes): a NOT
-- NULL integer column whose default takes the next value of a sequence that belongs to it (an
-- identity or serial column) and is neither cached nor descending. The claim floors rely on an
-- INSERT taking the value under its lock on the table (inbox.advance_floors); a cached sequence
-- hands values out of order across sessions, and a column whose values the application picks
-- itself (a sequence of its own, read before the INSERT) would put messages below the floors,
-- where only the sweep finds them.
CREATE OR REPLACE FUNCTION inbox.check_arrival_column(p_table regclass, p_column text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_sequence regclass;
    s pg_sequence;
BEGIN
    IF p_column IS NULL THEN
        RETURN;
    END IF;
    PERFORM inbox.require_table_column(p_table, 'arrival', p_column, ARRAY[]::text[], ARRAY['smallint', 'integer', 'bigint']);
    IF NOT (SELECT a.attnotnull FROM pg_attribute a WHERE a.attrelid = p_table AND a.attname = p_column) THEN
        RAISE EXCEPTION 'column % of % (the arrival column) must be NOT NULL', quote_ident(p_column), p_table
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_sequence := pg_get_serial_sequence(p_table::text, p_column)::regclass;
    IF v_sequence IS NULL THEN
        RAISE EXCEPTION 'column % of % (the arrival column) is not filled from a sequence of its own', quote_ident(p_column), p_table
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'use an identity column (GENERATED ALWAYS AS IDENTITY) or a serial one';
    END IF;
    SELECT * INTO s FROM pg_sequence q WHERE q.seqrelid = v_sequence;
    IF s.seqcache > 1 OR s.seqincrement < 0 THEN
        RAISE EXCEPTION 'sequence % of the arrival column % of % must count up without a cache', v_sequence, quote_ident(p_column), p_table
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = format('ALTER SEQUENCE %s CACHE 1 (a cache hands values out of order across sessions)', v_sequence);
    END IF;
END;
$$;

-- The privileges on a table and on its columns, as recorded in inbox_config.tracked_privileges.
CREATE OR REPLACE FUNCTION inbox.table_privileges(p_table regclass)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jsonb_build_object(
        'table', (SELECT to_jsonb(coalesce(t.relacl, acldefault('r', t.relowner))::text[])
                  FROM pg_class t WHERE t.oid = p_table),
        'columns', coalesce((SELECT jsonb_object_agg(a.attname, a.attacl::text[])
                             FROM pg_attribute a
                             WHERE a.attrelid = p_table AND a.attnum > 0 AND NOT a.attisdropped
                               AND a.attacl IS NOT NULL), '{}'))
$$;

-- Gives a tracked table (or its arrival column's sequence) back the privileges it had before
-- tracking (p_saved, from inbox.table_privileges): every role but the owner loses what it holds on
-- the table and its columns now, then gets what it held then. Grants the application made after tracking are lost
-- with the inbox's, as the two cannot be told apart. The grantor becomes the caller.
CREATE OR REPLACE FUNCTION inbox.restore_tracked_privileges(p_table regclass, p_saved jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_owner oid := (SELECT t.relowner FROM pg_class t WHERE t.oid = p_table);
    -- GRANT ... ON a sequence takes its own keyword for USAGE.
    v_object text := CASE WHEN (SELECT t.relkind FROM pg_class t WHERE t.oid = p_table) = 'S'
                          THEN 'SEQUENCE ' ELSE '' END || p_table::text;
    v_grantee text;
    v_column text;
    v_privilege text;
    v_grantable boolean;
BEGIN
    FOR v_grantee, v_column IN
        SELECT DISTINCT CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(x.grantee::regrole::text) END, x.col
        FROM (SELECT (aclexplode(t.relacl)).grantee, NULL::text AS col FROM pg_class t WHERE t.oid = p_table
              UNION ALL
              SELECT (aclexplode(a.attacl)).grantee, a.attname::text FROM pg_attribute a
              WHERE a.attrelid = p_table AND a.attnum > 0 AND NOT a.attisdropped AND a.attacl IS NOT NULL) x
        WHERE x.grantee <> v_owner
    LOOP
        IF v_column IS NULL THEN
            EXECUTE format('REVOKE ALL ON %s FROM %s', v_object, v_grantee);
        ELSE
            EXECUTE format('REVOKE ALL (%I) ON %s FROM %s', v_column, p_table, v_grantee);
        END IF;
    END LOOP;
    FOR v_grantee, v_column, v_privilege, v_grantable IN
        SELECT CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(x.grantee::regrole::text) END,
               x.col, x.privilege_type, x.is_grantable
        FROM (SELECT (aclexplode(array(SELECT jsonb_array_elements_text(p_saved -> 'table'))::aclitem[])).*, NULL::text AS col
              UNION ALL
              SELECT (aclexplode(array(SELECT jsonb_array_elements_text(c.value))::aclitem[])).*, c.key
              FROM jsonb_each(p_saved -> 'columns') c) x
        WHERE x.grantee <> v_owner
    LOOP
        EXECUTE format('GRANT %s%s ON %s TO %s%s', v_privilege,
            CASE WHEN v_column IS NULL THEN '' ELSE format(' (%I)', v_column) END,
            v_object, v_grantee, CASE WHEN v_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
END;
$$;

-- inbox.<name>_retry_state of a tracked inbox (see inbox.retry_state_table): one row per message
-- that failed at least once, keyed by the message id (same type as the table's id column). Its
-- retry_count and error serve only a table without such columns of its own; next_attempt_at (the
-- backoff) always lives here, as no tracked table maps one. No foreign key: that would add
-- triggers to the user's table. Rows of messages that are processed or gone are removed by
-- purge_inbox (inbox.purge_retry_state).
CREATE OR REPLACE FUNCTION inbox.create_retry_state_table(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF c.managed OR to_regclass(inbox.retry_state_table(c)) IS NOT NULL THEN
        RETURN;
    END IF;
    EXECUTE inbox.sql_template($t$
        CREATE TABLE {{side}} (
            message_id      {{id_type}} PRIMARY KEY,
            retry_count     integer NOT NULL DEFAULT 0,
            error           text,
            next_attempt_at timestamptz NOT NULL DEFAULT '-infinity',
            -- the failure history (inbox.failure_history)
            failing_since   timestamptz,
            last_failed_at  timestamptz,
            died_at         timestamptz,
            attempts        jsonb
        )$t$,
        jsonb_build_object('side', inbox.retry_state_table(c), 'id_type', inbox.id_type(c)));
END;
$$;

-- Helpers of earlier versions, now names of inbox.vocabulary (claimable, bucket, row, head).
DROP FUNCTION IF EXISTS inbox.tracked_claimable_sql(inbox.inbox_config);
DROP FUNCTION IF EXISTS inbox.tracked_bucket_sql(inbox.inbox_config);
DROP FUNCTION IF EXISTS inbox.tracked_row_sql(inbox.inbox_config);
DROP FUNCTION IF EXISTS inbox.tracked_head_sql(inbox.inbox_config);

-- claim_<name> of a tracked table: the same contract as a managed inbox's (SKIP LOCKED, marks
-- processed_at in the caller's transaction, priority then arrival order, p_buckets, only the head
-- of each aggregate with ordering), returning rows in the managed layout (row in inbox.vocabulary),
-- from the claim skeleton (inbox.claim_skeleton) with this pick. The claim walks the table's own
-- indexes: the inbox adds none, so a large table wants an index that serves the claim order over
-- unprocessed rows (docs/consuming.md). With ordering, every candidate is tested for an earlier
-- unprocessed message of its aggregate (an index on (aggregate, sequence) of the user's makes that
-- a probe). The marked rows are found again by their key (ctid, or the id on a partitioned table).
-- The byte budget as in a managed inbox's claim: the prefix of the locked rows, in claim order,
-- whose payloads fit, at least one. With an arrival column the claim walks from the session's
-- claim floor ({{floor_from}}; inbox.advance_floors), as a managed inbox's does from its floors.
-- Placeholders: the names of inbox.vocabulary, over m and (prefixed) over the updated row u,
-- {{floor_declarations}}, {{floors}} and {{floor_from}} (empty without an arrival column).
CREATE OR REPLACE FUNCTION inbox.tracked_claim_pick()
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT jsonb_build_object('declarations', '{{floor_declarations}}',
    'start', $t$IF EXISTS (SELECT 1 FROM inbox.inbox_config k WHERE k.inbox_name = {{inbox}} AND k.paused_at IS NOT NULL) THEN
                RETURN;  -- paused (inbox.pause_inbox)
            END IF;
            {{floors}}$t$,
    'pick', $t$RETURN QUERY
            WITH claimed AS (
                UPDATE {{table}} u SET {{processed_at_column}} = now()
                WHERE u.{{key}} = ANY (ARRAY(
                    SELECT l.k FROM (
                        SELECT l.k, row_number() OVER w AS n, sum(l.bytes) OVER w AS upto
                        FROM (SELECT m.{{key}} AS k, ROW({{claim_order}}) AS ord, {{bytes}} AS bytes
                              FROM {{table}} m
                              WHERE {{claimable}}
                                AND (v_mask IS NULL OR get_bit(v_mask, {{bucket}}) = 1)
                                {{floor_from}}
                                {{head}}
                              ORDER BY {{claim_order}}
                              LIMIT p_limit
                              FOR UPDATE OF m SKIP LOCKED) l
                        WINDOW w AS (ORDER BY l.ord ROWS UNBOUNDED PRECEDING)) l
                    WHERE p_max_bytes IS NULL OR l.n = 1 OR l.upto <= p_max_bytes))
                  AND {{u.still_unprocessed}}
                RETURNING u.*
            )
            SELECT {{row}} FROM claimed m ORDER BY {{claim_order}};$t$) $h$;

-- The signature of a managed inbox's claim, so the worker calls both alike; the skip-top turn and
-- several messages per aggregate are not applied to tracked tables (docs/consuming.md). No
-- planner settings but JIT (off, as in a managed inbox's claim): the claim walks the user's
-- indexes, whatever they are.
CREATE OR REPLACE FUNCTION inbox.rebuild_tracked_claim_function(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v jsonb := inbox.vocabulary(c);
BEGIN
    IF c.arrival_column IS NOT NULL THEN
        v := v || inbox.claim_floor_parts(c, '{0}', NULL) || jsonb_build_object('floor_from', inbox.sql_template(
            'AND {{floor_seq}} >= coalesce(v_from[1], ''-9223372036854775808''::bigint)', v));
    ELSE
        v := v || '{"floor_declarations": "", "floors": "", "floor_from": ""}';
    END IF;
    PERFORM inbox.create_claim_function(v || inbox.vocabulary_over(c, ARRAY['u']) || jsonb_build_object(
        'returns', 'TABLE (event_id text, event_type text, source text, aggregate_id text, payload jsonb,
                       received_at timestamptz, processed_at timestamptz, error text, retry_count integer,
                       trace_id text, seq bigint, priority integer, bucket integer)',
        'settings', 'SET jit = off',
        'directives', E'#variable_conflict use_column\n            ',
        'head', coalesce(v ->> 'head', '')), inbox.tracked_claim_pick());
END;
$$;

-- One failed attempt of a tracked table's message (mark_failed, mark_dead, record_failures):
-- the same guard as for a managed inbox (pending, or claimed by the calling transaction; not
-- dead), then retry count + 1 (p_dead: max_retries at once), the capped error and the next
-- attempt at p_from + (p_delay or the inbox's backoff), each in the table's column where it has
-- one and in the side table otherwise, and the failure history (as mark_failed's) in the side table. Returns 'retry', 'dead', or NULL when nothing changed.
CREATE OR REPLACE FUNCTION inbox.tracked_record_failure(c inbox.inbox_config, p_event_id text, p_error text,
                                                        p_delay interval, p_dead boolean, p_from timestamptz)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_retries integer;
    v_attempt integer;
    v_id_type text := inbox.id_type(c);
    v jsonb := inbox.vocabulary(c, p_settings => false) || jsonb_build_object('id_type', v_id_type);
BEGIN
    -- Locks the message row first: concurrent failures of one message count one after the other.
    EXECUTE inbox.sql_template('SELECT {{retries}} FROM {{table}} m WHERE {{id}} = $1::{{id_type}}'
                               ' AND ({{unprocessed}} OR {{processed_at}} = now()) FOR UPDATE OF m', v)
        INTO v_retries USING p_event_id;
    IF v_retries IS NULL OR v_retries >= c.max_retries THEN
        RETURN NULL;
    END IF;
    v_attempt := v_retries + 1;
    v_retries := CASE WHEN p_dead THEN c.max_retries ELSE v_retries + 1 END;
    -- The table's own retry count and error, where it has them; the side table's otherwise.
    EXECUTE inbox.sql_template('UPDATE {{table}} m SET {{processed_at_column}} = NULL{{set_retries}}{{set_error}}'
                               ' WHERE {{id}} = $1::{{id_type}}', v || jsonb_build_object(
            'set_retries', CASE WHEN c.retry_count_column IS NULL THEN ''
                                ELSE format(', %I = $2', c.retry_count_column) END,
            'set_error', CASE WHEN c.error_column IS NULL THEN ''
                              ELSE format(', %I = inbox.capped_error($3)', c.error_column) END))
        USING p_event_id, v_retries, p_error;
    EXECUTE inbox.sql_template($u$INSERT INTO {{side}} AS s (message_id, retry_count, error, next_attempt_at,
                failing_since, last_failed_at, died_at, attempts)
            VALUES ($1::{{id_type}}, $2, $3, $4, statement_timestamp(), statement_timestamp(),
                    CASE WHEN $5 THEN statement_timestamp() END,
                    inbox.failure_history(NULL, $6, statement_timestamp(), $7))
            ON CONFLICT (message_id) DO UPDATE
            SET retry_count = EXCLUDED.retry_count, error = EXCLUDED.error, next_attempt_at = EXCLUDED.next_attempt_at,
                failing_since = coalesce(s.failing_since, EXCLUDED.failing_since),
                last_failed_at = EXCLUDED.last_failed_at, died_at = EXCLUDED.died_at,
                attempts = inbox.failure_history(s.attempts, $6, statement_timestamp(), $7)$u$, v)
        USING p_event_id,
              CASE WHEN c.retry_count_column IS NULL THEN v_retries ELSE 0 END,
              CASE WHEN c.error_column IS NULL THEN inbox.capped_error(p_error) END,
              p_from + coalesce(p_delay, inbox.retry_delay(c.backoff_base, c.backoff_max, v_retries)),
              v_retries >= c.max_retries, v_attempt, p_error;
    RETURN CASE WHEN v_retries >= c.max_retries THEN 'dead' ELSE 'retry' END;
END;
$$;

-- Replays a tracked table's dead letters selected by p_selector (over alias m, the dead test
-- included; $1 ids, $2 type, $3 error group): retry count 0 and due at once, in the table's
-- retry column where it has one and in the side table (inbox.replay_dead_letters). Returns how many.
CREATE OR REPLACE FUNCTION inbox.tracked_replay(c inbox.inbox_config, p_selector text, p_event_ids text[],
                                                p_event_type text, p_error text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v jsonb := inbox.vocabulary(c) || jsonb_build_object('selection', p_selector, 'id_type', inbox.id_type(c),
                                                         'retry_count_column', quote_ident(c.retry_count_column));
    v_ids text[];
BEGIN
    EXECUTE inbox.sql_template('SELECT coalesce(array_agg({{id}}::text), ''{}'') FROM (SELECT {{id}} FROM {{table}} m'
                               ' WHERE {{selection}} FOR UPDATE OF m) m', v)
        INTO v_ids USING p_event_ids, p_event_type, p_error;
    IF c.retry_count_column IS NOT NULL THEN
        EXECUTE inbox.sql_template('UPDATE {{table}} m SET {{retry_count_column}} = 0 WHERE {{id}} = ANY ($1::{{id_type}}[])', v)
            USING v_ids;
    ELSIF c.arrival_column IS NOT NULL THEN
        -- For the lock on the table that the UPDATE above would take (see below).
        EXECUTE inbox.sql_template('UPDATE {{table}} m SET {{processed_at_column}} = m.{{processed_at_column}}'
                                   ' WHERE {{id}} = ANY ($1::{{id_type}}[])', v)
            USING v_ids;
    END IF;
    IF c.arrival_column IS NOT NULL AND cardinality(v_ids) > 0 THEN
        -- The claim floors have passed the replayed messages: they start again, and the lock taken
        -- above keeps them from passing the messages again before the replay commits
        -- (inbox.advance_floors).
        PERFORM inbox.reset_claim_floors();
    END IF;
    EXECUTE inbox.sql_template('UPDATE {{side}} s SET retry_count = 0, next_attempt_at = ''-infinity'','
                               ' failing_since = NULL, died_at = NULL'
                               ' WHERE s.message_id = ANY ($1::{{id_type}}[])', v)
        USING v_ids;
    RETURN cardinality(v_ids);
END;
$$;

-- Removes up to p_limit side-table rows of messages that are processed or no longer in the table
-- (deleted by the application or by retention). Returns how many.
CREATE OR REPLACE FUNCTION inbox.purge_retry_state(c inbox.inbox_config, p_limit integer)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_count integer;
BEGIN
    IF c.managed OR p_limit < 1 THEN
        RETURN 0;
    END IF;
    EXECUTE inbox.sql_template($q$DELETE FROM {{side}} x WHERE x.message_id = ANY (ARRAY(
            SELECT s.message_id FROM {{side}} s
            WHERE NOT EXISTS (SELECT 1 FROM {{table}} m WHERE {{id}} = s.message_id AND {{unprocessed}})
            LIMIT $1 FOR UPDATE OF s SKIP LOCKED))$q$, inbox.vocabulary(c, p_settings => false))
        USING p_limit;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END;
$$;
