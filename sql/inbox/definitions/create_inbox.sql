-- create_inbox / drop_inbox and the objects derived from an inbox's catalog rows.
--
-- Each kind of derived object has a generator of its own, which writes its SQL from a template
-- with named placeholders ({{table}}, ...: see inbox.sql_template):
--
--   inbox.create_message_table       the table of a managed inbox (create_inbox only)
--   inbox.rebuild_priority_function  priority_of_<name>, the "priority" of a message
--   inbox.create_derive_triggers     derive_<name> and the triggers <name>_derive(_on_update),
--                                    which fill the columns "priority" and "bucket"
--   inbox.create_retry_state_table   <name>_retry_state (tracked tables, definitions/tracking.sql)
--   inbox.create_message_indexes     <name>_claim_idx, _dlq_idx, _processed_brin, _ordering_idx,
--                                    _ordering_dead_idx
--   inbox.create_notify_trigger      <name>_notify
--   inbox.rebuild_payload_limit_trigger <name>_max_payload (with a maximum payload size)
--   inbox.rebuild_views              <name>_pending, <name>_dlq, <name>_stats, next_<name>
--   inbox.rebuild_claim_function     claim_<name>: claim_skeleton with a pick (plain_claim_pick,
--                                    ordered_claim_pick; tracked_claim_pick for a tracked table)
--   inbox.apply_inbox_grants         send_<name> and the grants of the roles (definitions/roles.sql)
--
-- inbox.rebuild_inbox_objects runs all but the first. create_inbox, the enable_* functions and
-- the upgrade step of install.sql (rebuild_inboxes.sql) call it, so re-running the install brings
-- every inbox's objects, whatever version made them, to the current definitions.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Fills the {{placeholders}} of a template from p_values, a JSON object of name -> SQL text, in
-- one pass: the text a value brings in is never searched for placeholders. The values are SQL the
-- caller built: identifiers quoted with format('%I'), literals with format('%L'). A placeholder
-- without a value is an error, so a misspelt one never reaches the generated SQL.
CREATE OR REPLACE FUNCTION inbox.sql_template(p_template text, p_values jsonb)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_rest text := p_template;
    v_out text := '';
    v_open integer;
    v_close integer;
    v_name text;
BEGIN
    LOOP
        v_open := strpos(v_rest, '{{');
        EXIT WHEN v_open = 0;
        v_close := strpos(substr(v_rest, v_open + 2), '}}');
        v_name := substr(v_rest, v_open + 2, v_close - 1);
        IF v_close = 0 OR p_values ->> v_name IS NULL THEN
            RAISE EXCEPTION 'SQL template placeholder {{%}} has no value', v_name USING ERRCODE = 'internal_error';
        END IF;
        v_out := v_out || left(v_rest, v_open - 1) || (p_values ->> v_name);
        v_rest := substr(v_rest, v_open + 2 + v_close + 1);
    END LOOP;
    RETURN v_out || v_rest;
END;
$$;

-- The vocabulary of an inbox: every SQL fragment that says something about its messages, as a
-- JSON object of name -> SQL text over the alias p_alias (m by default), ready for the
-- {{placeholders}} of inbox.sql_template. The generators, the views and the operations functions
-- speak of an inbox only through these names: a managed inbox and a tracked table differ in the
-- values here, never in the code that uses them. Identifiers are quoted with format('%I'),
-- literals with format('%L').
--   table          the inbox's table (schema-qualified, quoted)
--   function       claim_<name>;  inbox: the inbox's name as a literal;  max_retries
--   side           a tracked inbox's side table inbox.<name>_retry_state
--   id, event_type, processed_at, received_at, payload, next_attempt_at: the message's columns; a
--                  tracked table's next attempt is its side table's (NULL before a failure), and
--                  processed_at_column is the column alone, for SET
--   unprocessed    processed_at IS NULL: waiting, claimed by a transaction still running, or dead
--   still_unprocessed, still_claimable (managed): the same tests of a row found again by its TID
--                  (num_nulls(processed_at) = 1, which keeps the planner off the partial indexes of
--                  waiting rows: see the plain claim)
--   processed      processed_at IS NOT NULL
--   pending        unprocessed and not dead (backing off included): the <name>_pending view and the
--                  claim index (a managed inbox's retry counter is used bare so that the partial
--                  indexes, whose predicates are written the same way, match)
--   dead           unprocessed, out of retries: the <name>_dlq view and the dead-letter index
--   claimable      pending and due now: what a claim may take
--   backing_off    a failed message whose next attempt lies ahead
--   retries, error the retry count and last error (a tracked table's own columns, else its side
--                  table inbox.<name>_retry_state, probed by primary key)
--   failing_since, last_failed_at, died_at, attempts: the failure history (inbox.failure_history;
--                  a tracked table's in its side table, probed by primary key)
--   bucket, priority, bytes (the payload's stored size): per message, as a claim reads them
--   arrival_order  seq of a managed inbox; a tracked table's arrival column, or else received_at
--                  (when mapped), then the id
--   floor_seq, floor_level, floor_order: what the claim floors bound (inbox.advance_floors): seq,
--                  priority and (priority, seq) of a managed inbox; a tracked table's arrival column,
--                  0 (one level: its priorities are expressions no index serves) and the column
--                  again; absent for a tracked table without an arrival column
--   claim_order    priority (lower first), then arrival
--   tie            what orders an aggregate's messages of equal sequence: seq, or the id
--   key            how a claim finds the rows it locked again: ctid, or the id on a partitioned
--                  table (whose ctids repeat across partitions)
--   row            the message in the layout of a managed inbox's row (a tracked table's claim and
--                  listings); resequence: what a replay sets besides the retry state
--   aggregate, sequence (with ordering): the ordering columns
--   head           (a tracked table with ordering) the condition, starting with AND, that the
--                  message is its aggregate's head
-- Over the alias '' the names are bare columns, as an index definition wants them.
-- A name an inbox has no value for (received_at of a table without one) is absent, so a template
-- that needs it fails instead of generating wrong SQL.
-- p_settings false: without the names that come from the ordering and priority settings
-- (aggregate, sequence, head, resequence, and a tracked table's priority, claim_order and row), so
-- without reading those catalogs. The claim's floors (advance_claim_floors), failures, retention
-- and the gauges need none of them, and reading them would make a claim wait behind whoever
-- changes an inbox's settings (enable_inbox_ordering holds its lock to the end of its
-- transaction).
DROP FUNCTION IF EXISTS inbox.vocabulary(inbox.inbox_config, text);
CREATE OR REPLACE FUNCTION inbox.vocabulary(c inbox.inbox_config, p_alias text DEFAULT 'm',
                                            p_settings boolean DEFAULT true)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a text := CASE WHEN p_alias = '' THEN '' ELSE p_alias || '.' END;
    o inbox.inbox_ordering_config;
    p inbox.inbox_priority_config;
    v_table text := inbox.inbox_table(c);
    v_side text := inbox.retry_state_table(c);
    v_id text := a || quote_ident(c.id_column);
    v_processed_at text := a || quote_ident(c.processed_at_column);
    v_unprocessed text := v_processed_at || ' IS NULL';
    v_received_at text := a || quote_ident(c.received_at_column);  -- NULL without one
    v_aggregate text;
    v_sequence text;
    v_retries text;
    v_priority text;
    v_arrival text;
    v_side_probe text := 'SELECT 1 FROM ' || v_side || ' s WHERE s.message_id = ' || v_id;  -- tracked
    v jsonb;
BEGIN
    IF p_alias !~ '^[a-z]?$' THEN
        RAISE EXCEPTION 'vocabulary alias must be one lower-case letter or empty, got %', quote_literal(p_alias)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_settings THEN
        SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = c.inbox_name;
        SELECT * INTO p FROM inbox.inbox_priority_config WHERE inbox_name = c.inbox_name;
    END IF;
    v_aggregate := a || quote_ident(o.aggregate_column);
    v_sequence := a || quote_ident(o.sequence_column);
    v := jsonb_build_object(
        'table', v_table,
        'function', format('inbox.%I', 'claim_' || c.inbox_name),
        'inbox', format('%L', c.inbox_name),
        'max_retries', c.max_retries,
        'id', v_id,
        'event_type', a || quote_ident(c.event_type_column),
        'processed_at', v_processed_at,
        'processed_at_column', quote_ident(c.processed_at_column),
        'received_at', v_received_at,
        'aggregate', v_aggregate,
        'sequence', v_sequence,
        'unprocessed', v_unprocessed,
        'still_unprocessed', 'num_nulls(' || v_processed_at || ') = 1',
        'processed', v_processed_at || ' IS NOT NULL');
    IF c.managed THEN
        v_retries := a || 'retry_count';
        v_arrival := a || 'seq';
        RETURN jsonb_strip_nulls(v || jsonb_build_object(
            'payload', a || 'payload',
            'next_attempt_at', a || 'next_attempt_at',
            'retries', v_retries,
            'error', a || 'error',
            'failing_since', a || 'failing_since',
            'last_failed_at', a || 'last_failed_at',
            'died_at', a || 'died_at',
            'attempts', a || 'attempts',
            'pending', v_unprocessed || ' AND ' || v_retries || ' < ' || c.max_retries,
            'dead', v_unprocessed || ' AND ' || v_retries || ' >= ' || c.max_retries,
            'claimable', v_unprocessed || ' AND ' || v_retries || ' < ' || c.max_retries
                         || ' AND ' || a || 'next_attempt_at <= now()',
            'still_claimable', 'num_nulls(' || v_processed_at || ') = 1 AND ' || v_retries || ' < ' || c.max_retries
                               || ' AND ' || a || 'next_attempt_at <= now()',
            'backing_off', a || 'next_attempt_at > now()',
            'bucket', a || 'bucket',
            'priority', a || 'priority',
            'bytes', 'coalesce(pg_column_size(' || a || 'payload), 0)',
            'arrival_order', v_arrival,
            'floor_seq', v_arrival,
            'floor_level', a || 'priority',
            'floor_order', a || 'priority, ' || v_arrival,
            'claim_order', a || 'priority, ' || v_arrival,
            'tie', v_arrival,
            'key', 'ctid',
            'row', a || '*',
            -- Without ordering a replayed message gets a new seq (replay_dead_letters).
            'resequence', CASE WHEN NOT p_settings THEN NULL
                               WHEN o.inbox_name IS NULL THEN ', seq = DEFAULT' ELSE '' END));
    END IF;

    v_retries := CASE WHEN c.retry_count_column IS NOT NULL THEN 'coalesce(' || a || quote_ident(c.retry_count_column) || ', 0)'
                      ELSE 'coalesce((SELECT s.retry_count FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || '), 0)' END;
    v_priority := CASE WHEN p.inbox_name IS NULL THEN '999'
                       ELSE format('coalesce((%L::jsonb ->> %s%I::text)::integer, %s)', p.priority_map, a,
                                   p.priority_column, p.default_priority) END;
    v_arrival := CASE WHEN c.arrival_column IS NOT NULL THEN a || quote_ident(c.arrival_column)
                      WHEN c.received_at_column IS NULL THEN v_id
                      ELSE v_received_at || ', ' || v_id END;
    v := v || jsonb_build_object(
        'side', v_side,
        'payload', a || quote_ident(c.payload_column),
        'retries', v_retries,
        'error', CASE WHEN c.error_column IS NOT NULL THEN a || quote_ident(c.error_column) || '::text'
                      ELSE '(SELECT s.error FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || ')' END,
        'next_attempt_at', '(SELECT s.next_attempt_at FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || ')',
        'failing_since', '(SELECT s.failing_since FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || ')',
        'last_failed_at', '(SELECT s.last_failed_at FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || ')',
        'died_at', '(SELECT s.died_at FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || ')',
        'attempts', '(SELECT s.attempts FROM ' || v_side || ' s WHERE s.message_id = ' || v_id || ')',
        'backing_off', 'EXISTS (' || v_side_probe || ' AND s.next_attempt_at > now())',
        'bucket', CASE WHEN c.aggregate_column IS NULL THEN 'inbox.inbox_bucket(NULL)'
                       ELSE 'inbox.inbox_bucket(' || a || quote_ident(c.aggregate_column) || '::text)' END,
        'priority', v_priority,
        'bytes', CASE WHEN c.payload_column IS NULL THEN '0'
                      ELSE 'coalesce(pg_column_size(' || a || quote_ident(c.payload_column) || '), 0)' END,
        'arrival_order', v_arrival,
        'floor_seq', CASE WHEN c.arrival_column IS NOT NULL THEN v_arrival END,
        'floor_level', CASE WHEN c.arrival_column IS NOT NULL THEN '0' END,
        'floor_order', CASE WHEN c.arrival_column IS NOT NULL THEN v_arrival END,
        -- A bare constant in ORDER BY would be read as a column position: arrival alone.
        'claim_order', CASE WHEN p.inbox_name IS NULL THEN v_arrival ELSE v_priority || ', ' || v_arrival END,
        'tie', v_id,
        -- A partitioned table's ctids repeat across its partitions.
        'key', CASE WHEN (SELECT r.relkind FROM pg_class r WHERE r.oid = to_regclass(v_table)) = 'p'
                    THEN quote_ident(c.id_column) ELSE 'ctid' END,
        'resequence', '');
    IF c.retry_count_column IS NULL THEN
        -- Retries in the side table only: (NOT) EXISTS, run as an anti- or semi-join.
        v := v || jsonb_build_object(
            'pending', v_unprocessed || ' AND NOT EXISTS (' || v_side_probe || ' AND s.retry_count >= ' || c.max_retries || ')',
            'dead', v_unprocessed || ' AND EXISTS (' || v_side_probe || ' AND s.retry_count >= ' || c.max_retries || ')',
            'claimable', v_unprocessed || ' AND NOT EXISTS (' || v_side_probe
                         || ' AND (s.next_attempt_at > now() OR s.retry_count >= ' || c.max_retries || '))');
    ELSE
        v := v || jsonb_build_object(
            'pending', v_unprocessed || ' AND ' || v_retries || ' < ' || c.max_retries,
            'dead', v_unprocessed || ' AND ' || v_retries || ' >= ' || c.max_retries,
            'claimable', v_unprocessed || ' AND ' || v_retries || ' < ' || c.max_retries
                         || ' AND NOT EXISTS (' || v_side_probe || ' AND (s.next_attempt_at > now()))');
    END IF;
    v := v || jsonb_build_object('row', concat_ws(', ',
        v_id || '::text', v ->> 'event_type' || '::text', 'NULL::text',
        coalesce(a || quote_ident(c.aggregate_column) || '::text', 'NULL::text'),
        coalesce(a || quote_ident(c.payload_column) || '::jsonb', 'NULL::jsonb'),
        coalesce(v_received_at || '::timestamptz', 'NULL::timestamptz'),
        v_processed_at || '::timestamptz', v ->> 'error', v_retries || '::integer', 'NULL::text',
        CASE WHEN c.arrival_column IS NULL THEN '0::bigint' ELSE v_arrival || '::bigint' END,
        v_priority, v ->> 'bucket'));
    IF NOT p_settings THEN
        RETURN jsonb_strip_nulls(v - ARRAY['priority', 'claim_order', 'row', 'resequence']);
    END IF;
    IF o.inbox_name IS NOT NULL THEN
        -- No unprocessed message of the aggregate, dead and backing-off ones included (as in a
        -- managed inbox), comes before it by (sequence, id).
        v := v || jsonb_build_object('head', inbox.sql_template(
            'AND ({{aggregate}} IS NULL OR NOT EXISTS (SELECT 1 FROM {{table}} e WHERE e.{{aggregate_column}} = {{aggregate}}'
            ' AND e.{{processed_at_column}} IS NULL AND (e.{{sequence_column}}, e.{{id_column}}) < ({{sequence}}, {{id}})))',
            v || jsonb_build_object('aggregate_column', quote_ident(o.aggregate_column),
                'sequence_column', quote_ident(o.sequence_column), 'id_column', quote_ident(c.id_column))));
    END IF;
    RETURN jsonb_strip_nulls(v);
END;
$$;

-- The vocabulary over several aliases at once, each name prefixed by its alias ({{w.claimable}}),
-- for a template that speaks of several rows.
CREATE OR REPLACE FUNCTION inbox.vocabulary_over(c inbox.inbox_config, p_aliases text[])
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jsonb_object_agg(a.alias || '.' || e.key, e.value)
    FROM unnest(p_aliases) AS a(alias), jsonb_each(inbox.vocabulary(c, a.alias)) e
$$;

-- Helpers of earlier versions, now names of inbox.vocabulary.
DROP FUNCTION IF EXISTS inbox.arrival_order_sql(inbox.inbox_config);
DROP FUNCTION IF EXISTS inbox.queue_order_sql(inbox.inbox_config);

-- The table of a managed inbox (create_inbox only; rebuild_inbox_objects adds everything else).
-- Autovacuum visits it early (1 % of its rows dead) and works through it unthrottled (cost delay
-- 0): a claimed message's entries stay in the claim index, and on an ordered inbox in the ordering
-- index its head test probes, until vacuum removes them, and every claim steps over them. One
-- consumer draining 5,000,000 ordered messages for 80 s claimed 2,656,000 with autovacuum
-- throttled as by default (the vacuum that came after a minute had not finished) and 3,179,000
-- unthrottled (benchmarks/results/2026-11-29-benchmarks-notebook.md, "A deep backlog"). Only new
-- tables get these settings; an operator's ALTER TABLE ... SET / RESET is never undone.
CREATE OR REPLACE FUNCTION inbox.create_message_table(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    EXECUTE inbox.sql_template($t$
        CREATE TABLE {{table}} (
            event_id        text COLLATE "C" PRIMARY KEY,
            event_type      text,
            source          text,
            -- Opaque ids compare byte by byte, as event_id: cheaper comparisons in the ordering
            -- index and the ordered claim's head test than the database's collation.
            aggregate_id    text COLLATE "C",
            payload         jsonb,
            received_at     timestamptz NOT NULL DEFAULT now(),
            processed_at    timestamptz,
            error           text,
            retry_count     integer NOT NULL DEFAULT 0,
            trace_id        text,
            -- bookkeeping of the workers
            seq             bigint GENERATED ALWAYS AS IDENTITY,
            next_attempt_at timestamptz NOT NULL DEFAULT '-infinity',
            -- priority_of_<name>(event_type, source, aggregate_id) and inbox_bucket(aggregate_id):
            -- filled by send_<name> or the trigger <name>_derive (create_derive_triggers).
            priority        integer,
            bucket          smallint,
            -- the failure history, written only when an attempt fails (inbox.failure_history); last,
            -- where step 3 added them to the tables of earlier inboxes
            failing_since   timestamptz,
            last_failed_at  timestamptz,
            died_at         timestamptz,
            attempts        jsonb
        ) WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02,
                autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_vacuum_cost_delay = 0)$t$,
        jsonb_build_object('table', inbox.inbox_table(c)));
END;
$$;

-- The columns "priority" and "bucket" of a managed inbox, computed from the message:
-- priority_of_<name>(event_type, source, aggregate_id) and inbox_bucket(aggregate_id). They were
-- stored generated columns, and PostgreSQL prepares those again at the start of every INSERT:
-- it reads the expressions, inlines the functions in them and compiles the result, 45-55 us that
-- a single-row INSERT paid alone, 40 % of it (docs/performance.md, "Produce"). Now send_<name>
-- computes both in its INSERT (a plan kept for the session), and a row trigger fills them for
-- any other INSERT, each column that came NULL: its WHEN clause is tested without calling the
-- function, so a row that comes with both pays nothing. Producers cannot set either (their INSERT
-- privilege names the six message columns, apply_inbox_grants); the owner may, as it may set seq.
-- Changing event_type, source or aggregate_id computes both again (enable_inbox_priority
-- recomputes waiting messages that way). An inbox made with the generated columns keeps their
-- values: DROP EXPRESSION rewrites nothing.
CREATE OR REPLACE FUNCTION inbox.create_derive_triggers(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_values jsonb;
    v_column text;
BEGIN
    IF NOT c.managed THEN
        RETURN;
    END IF;
    v_values := jsonb_build_object(
        'table', inbox.inbox_table(c),
        'function', format('inbox.%I', 'derive_' || c.inbox_name),
        'priority_function', format('inbox.%I', 'priority_of_' || c.inbox_name));
    FOREACH v_column IN ARRAY ARRAY['priority', 'bucket'] LOOP
        IF EXISTS (SELECT 1 FROM pg_attribute a
                   WHERE a.attrelid = inbox.inbox_table(c)::regclass AND a.attname = v_column
                     AND a.attgenerated <> '') THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP EXPRESSION', inbox.inbox_table(c), v_column);
        END IF;
    END LOOP;
    EXECUTE inbox.sql_template($f$
        CREATE OR REPLACE FUNCTION {{function}}()
        RETURNS trigger
        LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp
        AS $body$
        BEGIN
            -- A producer's INSERT always comes here (it cannot set priority or bucket).
            IF TG_OP = 'INSERT' AND NEW.event_id = '' THEN
                RAISE EXCEPTION 'an event id must not be empty' USING ERRCODE = 'invalid_parameter_value';
            END IF;
            -- An INSERT keeps what it brought (the owner's values); a change recomputes both.
            IF TG_OP = 'UPDATE' OR NEW.priority IS NULL THEN
                NEW.priority := {{priority_function}}(NEW.event_type, NEW.source, NEW.aggregate_id);
            END IF;
            IF TG_OP = 'UPDATE' OR NEW.bucket IS NULL THEN
                NEW.bucket := inbox.inbox_bucket(NEW.aggregate_id);
            END IF;
            RETURN NEW;
        END;
        $body$
        $f$, v_values);
    PERFORM inbox.create_trigger_if_missing(c, c.inbox_name || '_derive',
        'CREATE TRIGGER {{trigger}} BEFORE INSERT ON {{table}} FOR EACH ROW '
        'WHEN (NEW.priority IS NULL OR NEW.bucket IS NULL) EXECUTE FUNCTION {{function}}()', v_values);
    PERFORM inbox.create_trigger_if_missing(c, c.inbox_name || '_derive_on_update',
        'CREATE TRIGGER {{trigger}} BEFORE UPDATE OF event_type, source, aggregate_id ON {{table}} '
        'FOR EACH ROW EXECUTE FUNCTION {{function}}()', v_values);
    -- Consumers and operators may strip payloads (retention), never rewrite them.
    PERFORM inbox.create_trigger_if_missing(c, c.inbox_name || '_payload_kept',
        'CREATE TRIGGER {{trigger}} BEFORE UPDATE OF payload ON {{table}} FOR EACH ROW '
        'WHEN (NEW.payload IS NOT NULL AND NEW.payload IS DISTINCT FROM OLD.payload) '
        'EXECUTE FUNCTION inbox.refuse_payload_change()', v_values);
END;
$$;

-- The trigger <name>_payload_kept: a message's payload does not change after it was sent. The
-- column privilege that lets retention strip payloads (UPDATE (payload), apply_inbox_grants)
-- would let consumers and operators write any payload; this lets them set it to NULL only. The
-- table's owner (and its members) may still change it. The trigger's WHEN clause keeps it off
-- every other UPDATE (claims, failures, replays).
CREATE OR REPLACE FUNCTION inbox.refuse_payload_change()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT pg_has_role((SELECT r.relowner FROM pg_class r WHERE r.oid = TG_RELID), 'MEMBER') THEN
        RAISE EXCEPTION 'a message''s payload cannot change after it was sent (inbox table %.%, event id %)',
            TG_TABLE_SCHEMA, TG_TABLE_NAME, OLD.event_id
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'retention may set it to NULL; only the table''s owner may change it';
    END IF;
    RETURN NEW;
END;
$$;

-- Creates one trigger on the inbox's table from a template unless the table has a trigger of that
-- name ({{trigger}} is its quoted name). CREATE OR REPLACE TRIGGER would lock the table against
-- producers until the installing transaction ends, even with nothing to change.
CREATE OR REPLACE FUNCTION inbox.create_trigger_if_missing(c inbox.inbox_config, p_trigger text, p_template text, p_values jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger t
                   WHERE t.tgrelid = inbox.inbox_table(c)::regclass AND t.tgname = p_trigger) THEN
        EXECUTE inbox.sql_template(p_template, p_values || jsonb_build_object('trigger', format('%I', p_trigger)));
    END IF;
END;
$$;

-- priority_of_<name>(event_type, source, aggregate_id) of a managed inbox: a CASE over the
-- literals of its priority map (inbox_priority_config), 999 without one. send_<name> and the
-- trigger function derive_<name> compute the column "priority" with it on every insert, so it
-- must stay inlinable: no SET clause (that would stop inlining and cost a call per row). Instead
-- its body is SQL-standard (RETURN ...), parsed once, here, under this function's pinned
-- search_path, and every operator in it is schema-qualified. enable_inbox_priority, which
-- changes the map, recomputes the stored values of waiting messages in the same transaction.
CREATE OR REPLACE FUNCTION inbox.rebuild_priority_function(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p inbox.inbox_priority_config;
    v_cases text := '';
    v_key text;
    v_value jsonb;
BEGIN
    IF NOT c.managed THEN
        RETURN;
    END IF;
    SELECT * INTO p FROM inbox.inbox_priority_config WHERE inbox_name = c.inbox_name;
    -- Keys in a fixed order, so regenerating gives the same function.
    FOR v_key, v_value IN SELECT e.key, e.value FROM jsonb_each(p.priority_map) e ORDER BY e.key LOOP
        v_cases := v_cases || format(' WHEN %s OPERATOR(pg_catalog.=) %L THEN %s',
            CASE p.priority_column WHEN 'event_type' THEN 'p_event_type'
                                   WHEN 'source' THEN 'p_source'
                                   ELSE 'p_aggregate_id' END,
            v_key, (v_value #>> '{}')::integer);
    END LOOP;
    EXECUTE inbox.sql_template($f$
        CREATE OR REPLACE FUNCTION {{function}}(p_event_type text, p_source text, p_aggregate_id text)
        RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        -- No SET search_path: inlinable; the body names its operators by schema.
        RETURN {{priority}}$f$,
        jsonb_build_object(
            'function', format('inbox.%I', 'priority_of_' || c.inbox_name),
            'priority', CASE WHEN v_cases = '' THEN coalesce(p.default_priority, 999)::text
                             ELSE format('CASE%s ELSE %s END', v_cases, p.default_priority) END));
END;
$$;

-- The priority levels a managed inbox's messages get from its map, in claim order: the map's
-- values and the default (999 without a map).
-- plpgsql keeps its plan for the session (count_waiting calls it on every look of a worker).
CREATE OR REPLACE FUNCTION inbox.priority_levels(c inbox.inbox_config)
RETURNS integer[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT array_agg(DISTINCT l.level ORDER BY l.level)
            FROM (SELECT coalesce((SELECT p.default_priority FROM inbox.inbox_priority_config p
                                   WHERE p.inbox_name = c.inbox_name), 999) AS level
                  UNION ALL
                  SELECT (e.value #>> '{}')::integer FROM inbox.inbox_priority_config p, jsonb_each(p.priority_map) e
                  WHERE p.inbox_name = c.inbox_name) l);
END;
$$;

-- Creates one index from a template unless it exists ({{index}} is its quoted name). CREATE INDEX
-- IF NOT EXISTS would still take the table's SHARE lock, which holds off producers until the
-- installing transaction ends. A relation of that name that is not the inbox's (two inboxes made
-- before names were reserved) is left alone, with a warning.
CREATE OR REPLACE FUNCTION inbox.create_index_if_missing(c inbox.inbox_config, p_index text, p_template text, p_values jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT inbox.belongs_to_inbox(c, p_index) THEN
        RAISE WARNING 'inbox %: inbox.% belongs to something else; index not created', c.inbox_name, p_index;
    ELSIF to_regclass(format('inbox.%I', p_index)) IS NULL THEN
        EXECUTE inbox.sql_template(p_template, p_values || jsonb_build_object('index', format('%I', p_index)));
    END IF;
END;
$$;

-- The indexes of a managed inbox's table (those that are missing).
CREATE OR REPLACE FUNCTION inbox.create_message_indexes(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_values jsonb := inbox.vocabulary(c, '');  -- bare column names: no alias in an index
BEGIN
    IF NOT c.managed THEN
        RETURN;
    END IF;
    -- Claim order over waiting messages only: the index stays as small as the backlog. It also
    -- serves pending counts and the oldest pending message (inbox_health), so received_at needs
    -- no index of its own (one index insert per message saved).
    PERFORM inbox.create_index_if_missing(c, c.inbox_name || '_claim_idx',
        'CREATE INDEX {{index}} ON {{table}} (priority, seq) WHERE {{pending}}',
        v_values);
    -- Dead letters: listing, counting, replay by type and DLQ retention.
    PERFORM inbox.create_index_if_missing(c, c.inbox_name || '_dlq_idx',
        'CREATE INDEX {{index}} ON {{table}} (received_at) WHERE {{dead}}',
        v_values);
    -- Retention and throughput read processed rows by time; BRIN costs next to nothing to maintain.
    PERFORM inbox.create_index_if_missing(c, c.inbox_name || '_processed_brin',
        'CREATE INDEX {{index}} ON {{table}} USING brin (processed_at)', v_values);
    -- Failed attempts per minute (inbox_throughput): only messages that failed have an entry.
    PERFORM inbox.create_index_if_missing(c, c.inbox_name || '_failed_idx',
        'CREATE INDEX {{index}} ON {{table}} (last_failed_at) WHERE last_failed_at IS NOT NULL', v_values);
    IF v_values ? 'aggregate' THEN
        -- The head test of the ordered claim (is there an earlier unprocessed message?).
        -- enable_inbox_ordering drops it first when the columns change.
        PERFORM inbox.create_index_if_missing(c, c.inbox_name || '_ordering_idx',
            'CREATE INDEX {{index}} ON {{table}} ({{aggregate}}, {{sequence}}, seq) WHERE {{unprocessed}}', v_values);
        -- Ordered by seq, the dead letters the head test passes over with the order floor
        -- (inbox.earlier_unprocessed_sql): each aggregate's, in its order. Dead letters only: few,
        -- and no claim writes them.
        IF v_values ->> 'sequence' = 'seq' THEN
            PERFORM inbox.create_index_if_missing(c, c.inbox_name || '_ordering_dead_idx',
                'CREATE INDEX {{index}} ON {{table}} ({{aggregate}}, seq) WHERE {{dead}}', v_values);
        END IF;
    END IF;
END;
$$;

-- One notification per INSERT statement into a managed inbox's table (or a tracked table whose
-- inbox asked for it: enable_inbox_tracking(p_notify => true)), not per row. Consumers
-- count waiting messages, so PostgreSQL folding identical notifications loses nothing. None on a
-- Citus distributed inbox (inbox.distribute_inbox says why).
CREATE OR REPLACE FUNCTION inbox.create_notify_trigger(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT (c.managed OR c.notify_trigger) OR inbox.is_distributed(c) THEN
        RETURN;
    END IF;
    PERFORM inbox.create_trigger_if_missing(c, c.inbox_name || '_notify',
        'CREATE TRIGGER {{trigger}} AFTER INSERT ON {{table}} FOR EACH STATEMENT '
        'EXECUTE FUNCTION inbox.notify_inbox_insert({{channel}}, {{inbox}})',
        jsonb_build_object('table', inbox.inbox_table(c),
            'channel', format('%L', c.notify_channel), 'inbox', format('%L', c.inbox_name)));
END;
$$;

-- <name>_max_payload, the BEFORE INSERT trigger of a managed inbox with a maximum payload size
-- (inbox_config.max_payload_bytes, set by inbox.set_max_payload_size); none without one, so an
-- inbox without a limit pays nothing per insert.
CREATE OR REPLACE FUNCTION inbox.rebuild_payload_limit_trigger(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    v_values jsonb;
    v_args text;  -- the arguments of the trigger in place, NULL without one
BEGIN
    IF NOT c.managed THEN
        RETURN;
    END IF;
    -- Only a change touches the table: CREATE OR REPLACE / DROP TRIGGER IF EXISTS would lock it
    -- against producers until the installing transaction ends, even with nothing to do.
    SELECT encode(t.tgargs, 'escape') INTO v_args FROM pg_trigger t
    WHERE t.tgrelid = inbox.inbox_table(c)::regclass AND t.tgname = c.inbox_name || '_max_payload';
    IF v_args IS NOT DISTINCT FROM (c.max_payload_bytes || '\000' || c.inbox_name || '\000') THEN
        RETURN;
    END IF;
    v_values := jsonb_build_object('trigger', format('%I', c.inbox_name || '_max_payload'),
        'table', inbox.inbox_table(c), 'max_bytes', format('%L', c.max_payload_bytes),
        'inbox', format('%L', c.inbox_name));
    IF c.max_payload_bytes IS NULL THEN
        EXECUTE inbox.sql_template('DROP TRIGGER {{trigger}} ON {{table}}', v_values);
    ELSE
        EXECUTE inbox.sql_template(
            'CREATE OR REPLACE TRIGGER {{trigger}} BEFORE INSERT ON {{table}} FOR EACH ROW '
            'EXECUTE FUNCTION inbox.enforce_max_payload({{max_bytes}}, {{inbox}})', v_values);
    END IF;
END;
$$;

-- The trigger function of <name>_max_payload (TG_ARGV: the maximum in bytes, the inbox name).
-- pg_column_size of the new jsonb value, before compression: about the size of its JSON text.
-- The error names the message, never its content.
CREATE OR REPLACE FUNCTION inbox.enforce_max_payload()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_column_size(NEW.payload) > TG_ARGV[0]::integer THEN
        RAISE EXCEPTION 'payload of message % is % bytes, more than the % bytes inbox % accepts',
            quote_literal(NEW.event_id), pg_column_size(NEW.payload), TG_ARGV[0], quote_literal(TG_ARGV[1])
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    RETURN NEW;
END;
$$;

-- Replaces the view inbox.<p_view> of an inbox with a new query (p_query NULL: drops it), keeping
-- the privileges others hold on it (a re-install or an enable_* must not drop a GRANT SELECT ON
-- inbox.orders_dlq TO grafana). A relation of that name that is not the inbox's (two inboxes made
-- before names were reserved) is left alone, with a warning: an install or drop_inbox never fails
-- because of another inbox.
CREATE OR REPLACE FUNCTION inbox.replace_view(c inbox.inbox_config, p_view text, p_query text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    v_grants text[];
BEGIN
    IF NOT inbox.belongs_to_inbox(c, p_view) THEN
        RAISE WARNING 'inbox %: inbox.% belongs to something else; view not %', c.inbox_name, p_view,
            CASE WHEN p_query IS NULL THEN 'dropped' ELSE 'created' END;
        RETURN;
    END IF;
    v_grants := inbox.relation_grants(ARRAY[p_view]);
    EXECUTE format('DROP VIEW IF EXISTS inbox.%I', p_view);
    IF p_query IS NOT NULL THEN
        EXECUTE format('CREATE VIEW inbox.%I AS %s', p_view, p_query);
        PERFORM inbox.restore_grants(v_grants);
    END IF;
END;
$$;

-- The views of an inbox (plain views: always current): <name>_pending (waiting, in claim order),
-- <name>_dlq (dead letters, by arrival), <name>_stats (counts per event type) and, with ordering,
-- next_<name> (the head of every aggregate).
CREATE OR REPLACE FUNCTION inbox.rebuild_views(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    v jsonb := inbox.vocabulary(c);
BEGIN
    PERFORM inbox.replace_view(c, c.inbox_name || '_pending', inbox.sql_template(
        'SELECT m.* FROM {{table}} m WHERE {{pending}} ORDER BY {{claim_order}}', v));
    PERFORM inbox.replace_view(c, c.inbox_name || '_dlq', inbox.sql_template(
        'SELECT m.* FROM {{table}} m WHERE {{dead}} ORDER BY {{arrival_order}}', v));
    PERFORM inbox.replace_view(c, c.inbox_name || '_stats', inbox.sql_template($v$
        SELECT {{event_type}} AS event_type,
               count(*) FILTER (WHERE {{pending}}) AS pending,
               count(*) FILTER (WHERE {{processed}}) AS processed,
               count(*) FILTER (WHERE {{dead}}) AS dead,
               count(*) AS total
        FROM {{table}} m GROUP BY {{event_type}}$v$, v));

    IF v ->> 'aggregate' IS NULL THEN
        PERFORM inbox.replace_view(c, 'next_' || c.inbox_name, NULL);
        RETURN;
    END IF;
    -- The next unprocessed message of every aggregate, dead or backing off included: such a head
    -- blocks its aggregate (see docs/consuming.md). Ties of the sequence go to the earlier arrival
    -- (seq) of a managed inbox and to the lower id of a tracked table, as in its claim (head in
    -- inbox.vocabulary).
    PERFORM inbox.replace_view(c, 'next_' || c.inbox_name, inbox.sql_template($v$
        SELECT DISTINCT ON ({{aggregate}}) m.* FROM {{table}} m
        WHERE {{unprocessed}} AND {{aggregate}} IS NOT NULL
        ORDER BY {{aggregate}}, {{sequence}}, {{tie}}$v$, v));
END;
$$;

-- The claim functions, one skeleton for every kind. A queue table's statistics are always stale
-- (rows come and go between analyzes); believing the backlog tiny, the planner picked a bitmap
-- scan of the whole backlog plus a sort (25 ms instead of 1.6 ms for 100 of 100,000). A managed
-- inbox's claim must walk the claim index in order, so the alternatives are off inside the
-- function (managed_claim_settings). Their penalty costs would trigger JIT compilation (~400 ms a
-- call), so JIT is off too (in a tracked table's claim as well). The pinned search_path keeps every
-- name in the body to the built-ins and the inbox's own objects.
-- Generic plans: plpgsql keeps each statement's plan for the session, but by default it plans a
-- statement with parameters again for every call whenever the generic plan's estimate is higher
-- (here always: a LIMIT of unknown size); planning was a fifth of a claim of 10 and a tenth of a
-- claim of 100 (docs/performance.md, "Claim"). With the alternatives off, the generic plan walks
-- the same index as a custom one; the bucket mask and the priority floor become per-row tests of
-- a parameter instead of being folded away.
-- p_max_bytes is the batch's byte budget (NULL: none): the claim stops adding messages once their
-- payloads' stored size (pg_column_size, the measure of set_max_payload_size) would pass it, but
-- always takes at least one message, so a payload bigger than the budget is claimed alone.
-- p_skip_top_priority: this claim takes only messages below the most urgent priority waiting (when
-- any can be claimed; else it claims as usual). A consumer that sets it on every n-th claim gives
-- the priorities below the top at least that share of the claims, however many top-priority
-- messages keep arriving.
-- p_per_aggregate: on an ordered inbox, a claim may take up to that many messages of one aggregate,
-- its head and the messages right behind it, in order (ordered_claim_pick); elsewhere it
-- changes nothing (a plain inbox has no per-aggregate bound, a tracked table's claim takes heads).
-- The skeleton fills in, for every kind of claim, the parts of a pick (inbox.plain_claim_pick,
-- inbox.ordered_claim_pick, inbox.tracked_claim_pick in definitions/tracking.sql): its {{declarations}},
-- the {{start}} of its body after the argument checks (claim floors, pause) and the {{pick}}
-- itself, which locks, marks and returns the batch. Placeholders besides: {{function}},
-- {{returns}} (SETOF the inbox's table, or a tracked table's rows in that layout), {{settings}}
-- (the SET clauses above, or a tracked claim's own) and {{directives}} (plpgsql's, or nothing).
CREATE OR REPLACE FUNCTION inbox.claim_skeleton()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$
            CREATE OR REPLACE FUNCTION {{function}}(p_limit integer, p_buckets integer[] DEFAULT NULL,
                                                    p_max_bytes bigint DEFAULT NULL,
                                                    p_skip_top_priority boolean DEFAULT false,
                                                    p_per_aggregate integer DEFAULT 1)
            RETURNS {{returns}}
            LANGUAGE plpgsql
            SET search_path = pg_catalog, pg_temp
            {{settings}}
            AS $body$
            {{directives}}DECLARE
                v_mask varbit := inbox.inbox_bucket_mask(p_buckets);  -- NULL: every bucket
                {{declarations}}
            BEGIN
                {{checks}}
                {{start}}
                {{pick}}
            END;
            $body$
$t$ $h$;

-- Before the skeleton, each kind's template was a whole function.
DROP FUNCTION IF EXISTS inbox.generated_claim_header();
DROP FUNCTION IF EXISTS inbox.plain_claim_template();
DROP FUNCTION IF EXISTS inbox.ordered_claim_template();

-- The SET clauses of a managed inbox's claim (see above).
CREATE OR REPLACE FUNCTION inbox.managed_claim_settings()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$SET enable_bitmapscan = off SET enable_sort = off SET enable_seqscan = off SET jit = off
            SET plan_cache_mode = force_generic_plan$t$ $h$;

-- (Re)creates claim_<name> from the skeleton and the parts of a pick (declarations, start, pick),
-- each filled from p_values first. Earlier versions had fewer arguments; such an overload would
-- make calls with fewer arguments ambiguous, so it goes. EXECUTE stays PUBLIC's, as for any new
-- function.
CREATE OR REPLACE FUNCTION inbox.create_claim_function(p_values jsonb, p_parts jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_old text;
BEGIN
    FOREACH v_old IN ARRAY ARRAY['integer, integer[]', 'integer, integer[], bigint',
                                 'integer, integer[], bigint, boolean'] LOOP
        IF to_regprocedure(p_values ->> 'function' || '(' || v_old || ')') IS NOT NULL THEN
            EXECUTE 'DROP FUNCTION ' || (p_values ->> 'function') || '(' || v_old || ')';
        END IF;
    END LOOP;
    EXECUTE inbox.sql_template(inbox.claim_skeleton(), p_values || jsonb_build_object(
        'checks', inbox.generated_claim_checks(),
        'declarations', inbox.sql_template(p_parts ->> 'declarations', p_values),
        'start', inbox.sql_template(p_parts ->> 'start', p_values),
        'pick', inbox.sql_template(p_parts ->> 'pick', p_values)));
END;
$$;

-- The start of the body of every claim function: the argument checks.
CREATE OR REPLACE FUNCTION inbox.generated_claim_checks()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$IF p_limit IS NULL OR p_limit < 1 THEN
                    RAISE EXCEPTION 'claim limit must be at least 1, got %', coalesce(p_limit::text, 'NULL')
                        USING ERRCODE = 'invalid_parameter_value';
                END IF;
                IF p_max_bytes < 1 THEN
                    RAISE EXCEPTION 'claim byte budget must be at least 1, got %', p_max_bytes
                        USING ERRCODE = 'invalid_parameter_value';
                END IF;
                IF p_per_aggregate IS NULL OR p_per_aggregate < 1 THEN
                    RAISE EXCEPTION 'messages per aggregate must be at least 1, got %', coalesce(p_per_aggregate::text, 'NULL')
                        USING ERRCODE = 'invalid_parameter_value';
                END IF;$t$ $h$;

-- The ordered claim's priority floor of a claim that skips the top priority (one probe of the
-- claim index each). The plain claim finds the top level from its claim floors instead.
-- Placeholders: {{table}}, {{max_retries}}.
CREATE OR REPLACE FUNCTION inbox.generated_claim_prelude()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$IF p_skip_top_priority THEN
                    SELECT w.priority INTO v_floor FROM {{table}} w
                    WHERE {{w.claimable}}
                      AND (v_mask IS NULL OR get_bit(v_mask, w.bucket) = 1)
                    ORDER BY w.priority, w.seq
                    LIMIT 1;
                    IF NOT EXISTS (SELECT 1 FROM {{table}} w
                                   WHERE {{w.claimable}}
                                     AND (v_mask IS NULL OR get_bit(v_mask, w.bucket) = 1)
                                     AND w.priority > v_floor
                                   ORDER BY w.priority, w.seq
                                   LIMIT 1) THEN
                        v_floor := NULL;  -- nothing below the top waits
                    END IF;
                END IF;$t$ $h$;

-- The byte budget's cut of a claim's locked rows v_tids, whose payloads' sizes sum to v_bytes: only
-- when the sum passes p_max_bytes (and more than one row is locked), v_tids becomes the prefix that
-- fits, in claim order (a running sum over the locked rows; the first row always stays). Summing
-- every claim through a window instead cost 5 % of a claim of 100 and 13 % of a claim of 1,000.
-- Placeholders: {{table}}.
CREATE OR REPLACE FUNCTION inbox.generated_claim_budget_cut()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$IF v_bytes > p_max_bytes AND cardinality(v_tids) > 1 THEN
                    -- Sorting the few locked rows, not walking the claim index in order while
                    -- filtering on ctid (the function's SET clause keeps this inside it).
                    PERFORM set_config('enable_sort', 'on', true);
                    SELECT array_agg(w.tid) INTO v_tids
                    FROM (SELECT c.ctid AS tid, row_number() OVER o AS n,
                                 sum(coalesce(pg_column_size(c.payload), 0)) OVER o AS upto
                          FROM {{table}} c
                          WHERE c.ctid = ANY (v_tids)
                          WINDOW o AS (ORDER BY c.priority, c.seq ROWS UNBOUNDED PRECEDING)) w
                    WHERE w.n = 1 OR w.upto <= p_max_bytes;
                END IF;$t$ $h$;

-- The end of a claim that locked its rows first: mark the locked rows v_tids processed and return
-- them in claim order. A TID found by FOR UPDATE may be a newer version than the locking
-- statement's snapshot saw (updated and committed meanwhile); the num_nulls guard then skips it
-- and it stays pending (see the plain claim).
-- Placeholders: {{table}}.
CREATE OR REPLACE FUNCTION inbox.generated_claim_mark()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$RETURN QUERY
                WITH claimed AS (
                    UPDATE {{table}} m SET processed_at = now()
                    WHERE m.ctid = ANY (v_tids) AND {{m.still_unprocessed}}
                    RETURNING m.*
                )
                SELECT * FROM claimed ORDER BY claimed.priority, claimed.seq;$t$ $h$;

-- The declarations of the claim floors of a managed inbox's claim (inbox.advance_claim_floors):
-- the session's state, its levels and their floors.
-- Placeholders: {{floor_key}}.
CREATE OR REPLACE FUNCTION inbox.generated_claim_floor_declarations()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$v_state text[] := string_to_array(current_setting({{floor_key}}, true), ';');
                v_levels integer[];  -- the priority levels, in claim order
                v_from bigint[];     -- and each one's floor (NULL: from the start of the level)$t$ $h$;

-- A claim's floors, moved first when due: the three tests of inbox.claim_floors, inline to save
-- a call per claim. The state also says whether the inbox is paused, as of its last move: a pause
-- stops the claims of every session within inbox.claim_floor_move_ms (200 ms).
-- Placeholders: {{inbox}} (the name as a literal), {{floor_key}}, {{levels}} (an integer[] literal),
-- {{seq_aggregate}} (inbox.seq_ordering_aggregate as a literal, or NULL).
CREATE OR REPLACE FUNCTION inbox.generated_claim_floors()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$IF v_state IS NULL
                   OR v_state[1]::bigint <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                   OR v_state[2] IS DISTINCT FROM coalesce(v_mask::text, '') || '@' || {{levels}}::text THEN
                    v_state := string_to_array(inbox.advance_claim_floors({{inbox}}, v_mask, {{levels}}, {{seq_aggregate}}), ';');
                END IF;
                v_levels := v_state[4]::integer[];
                v_from := v_state[5]::bigint[];
                IF v_state[9] = 'paused' THEN
                    RETURN;  -- inbox.pause_inbox: nothing is claimed until resume_inbox
                END IF;$t$ $h$;

-- The parts of a claim that keep its floors over p_levels: {{floor_declarations}}
-- (generated_claim_floor_declarations) and {{floors}} (generated_claim_floors), and the values
-- these were filled with. p_seq_aggregate: as for inbox.advance_claim_floors.
CREATE OR REPLACE FUNCTION inbox.claim_floor_parts(c inbox.inbox_config, p_levels integer[], p_seq_aggregate text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v jsonb := jsonb_build_object(
        'inbox', quote_literal(c.inbox_name),
        -- inbox.claim_floor_key, inline.
        'floor_key', format('CASE WHEN v_mask IS NULL THEN %L ELSE %L END',
                            'pginbox_floor.' || c.inbox_name, 'pginbox_bucket_floor.' || c.inbox_name),
        'levels', quote_literal(p_levels::text) || '::integer[]',
        'seq_aggregate', coalesce(quote_literal(p_seq_aggregate), 'NULL'));
BEGIN
    RETURN v || jsonb_build_object(
        'floor_declarations', inbox.sql_template(inbox.generated_claim_floor_declarations(), v),
        'floors', inbox.sql_template(inbox.generated_claim_floors(), v));
END;
$$;

-- claim_<name> without ordering. Claim = select the next batch with SKIP LOCKED and mark it
-- processed in one statement. The caller's transaction is the unit of work: commit keeps the
-- mark, rollback (or a crash) returns the messages to the queue. Failures are reset with
-- mark_failed before commit. p_buckets restricts the claim to partition buckets (NULL = all),
-- tested as a bit mask.
-- The claim order is walked one priority level at a time, each from the session's claim floor
-- of that level (inbox.advance_claim_floors, at most every 200 ms; the floors otherwise come from
-- the setting {{floor_key}}): the index entries of messages claimed before the floor, which stay
-- while vacuum cannot remove them, are never read again (docs/performance.md, "Claim floors").
-- {{levels}} are the inbox's priority levels; a level holding no message costs one index descent.
-- The locked rows are updated by ctid (a TID scan): joining on event_id let the planner pick a
-- hash join over a sequential scan of the whole table (docs/performance.md, "Claim"). A TID found by
-- FOR UPDATE may be a newer version than the statement's snapshot sees (updated and committed
-- meanwhile); the UPDATE then skips it and it stays pending. That guard is written
-- num_nulls(processed_at) = 1, not processed_at IS NULL: the latter lets the planner use the
-- partial indexes of pending rows for the UPDATE, and with statistics taken while nothing was
-- pending it scanned one (filtering on ctid) instead of the TID scan, reading the whole backlog per
-- claim (docs/performance.md, "Claim").
-- A claim within a byte budget sums the payload sizes of the rows it locked and, only when the sum
-- passes the budget, claims the prefix that fits, in claim order. A locked row past the budget stays locked by this transaction until
-- it ends, so other claims skip it meanwhile: a delay of one batch, never a loss, and only in
-- batches the budget cut short. Locking row by row instead (a cursor) would cost every claim.
-- A claim that skips the top priority claims from the levels after the first with a claimable
-- message, and claims as usual when it finds nothing there.
-- Placeholders: {{budget_cut}} (generated_claim_budget_cut), {{mark}} (generated_claim_mark),
-- {{table}}, {{max_retries}}, {{function}}, {{floor_declarations}}
-- (generated_claim_floor_declarations), {{floors}} (generated_claim_floors).
CREATE OR REPLACE FUNCTION inbox.plain_claim_pick()
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT jsonb_build_object('declarations', $t$v_tids tid[];     -- the rows a claim within a byte budget locked
                v_bytes bigint;   -- and their payloads' size
                v_level_tids tid[];
                v_level_bytes bigint;
                {{floor_declarations}}
                v_i integer;
                v_top integer;    -- the level skipped by p_skip_top_priority
                v_left integer := p_limit;
                v_n integer;$t$,
    'start', '{{floors}}',
    'pick', $t$IF p_skip_top_priority THEN
                    FOR v_i IN 1 .. cardinality(v_levels) LOOP
                        PERFORM FROM {{table}} w
                        WHERE {{w.claimable}}
                          AND (v_mask IS NULL OR get_bit(v_mask, w.bucket) = 1)
                          AND w.priority = v_levels[v_i] AND w.seq >= coalesce(v_from[v_i], '-9223372036854775808'::bigint)
                        ORDER BY w.priority, w.seq
                        LIMIT 1;
                        IF FOUND THEN
                            v_top := v_i;
                            EXIT;
                        END IF;
                    END LOOP;
                END IF;
                FOR v_i IN coalesce(v_top + 1, 1) .. cardinality(v_levels) LOOP
                    IF p_max_bytes IS NULL THEN
                        RETURN QUERY
                        WITH claimed AS (
                            UPDATE {{table}} m SET processed_at = now()
                            WHERE m.ctid = ANY (ARRAY(
                                SELECT c.ctid
                                FROM {{table}} c
                                WHERE {{c.claimable}}
                                  AND (v_mask IS NULL OR get_bit(v_mask, c.bucket) = 1)
                                  AND c.priority = v_levels[v_i]
                                  AND c.seq >= coalesce(v_from[v_i], '-9223372036854775808'::bigint)
                                ORDER BY c.priority, c.seq
                                LIMIT v_left
                                FOR UPDATE OF c SKIP LOCKED))
                              AND {{m.still_unprocessed}}
                            RETURNING m.*
                        )
                        SELECT * FROM claimed ORDER BY claimed.priority, claimed.seq;
                        GET DIAGNOSTICS v_n = ROW_COUNT;
                    ELSE
                        -- The same claim within the byte budget: lock the level's part of the batch
                        -- and sum its payloads' sizes in one pass; only a batch whose sum passes the
                        -- budget is cut (budget_cut).
                        SELECT array_agg(l.tid), sum(l.bytes) INTO v_level_tids, v_level_bytes
                        FROM (SELECT c.ctid AS tid, coalesce(pg_column_size(c.payload), 0) AS bytes
                              FROM {{table}} c
                              WHERE {{c.claimable}}
                                AND (v_mask IS NULL OR get_bit(v_mask, c.bucket) = 1)
                                AND c.priority = v_levels[v_i]
                                AND c.seq >= coalesce(v_from[v_i], '-9223372036854775808'::bigint)
                              ORDER BY c.priority, c.seq
                              LIMIT v_left
                              FOR UPDATE OF c SKIP LOCKED) l;
                        v_n := coalesce(cardinality(v_level_tids), 0);
                        v_tids := coalesce(v_tids, '{}') || coalesce(v_level_tids, '{}');
                        v_bytes := coalesce(v_bytes, 0) + coalesce(v_level_bytes, 0);
                    END IF;
                    v_left := v_left - v_n;
                    EXIT WHEN v_left = 0 OR v_bytes > p_max_bytes;
                END LOOP;
                IF cardinality(v_tids) > 0 THEN
                    {{budget_cut}}
                    {{mark}}
                END IF;
                IF v_left = p_limit AND v_top IS NOT NULL THEN
                    -- Below the top, nothing waits or everything was locked by other claims: an
                    -- ordinary claim.
                    RETURN QUERY SELECT * FROM {{function}}(p_limit, p_buckets, p_max_bytes);
                END IF;$t$) $h$;

-- The first window of the ordered claim: up to v_window claimable messages from the start of the
-- claim order (priority, seq), each flagged "candidate" when it may be its aggregate's head: it has
-- no aggregate, no sequence value, or it is the earliest of its aggregate's messages in the window
-- by (sequence, seq). Any other is blocked by an earlier window message of its aggregate,
-- unprocessed in the same snapshot, so the head test (an index probe each) runs on candidates only.
-- Without this, a window of followers (each aggregate's next messages: a worker whose share of the
-- aggregates is smaller than its batch) probed every one of its messages on every claim. Reading
-- the whole window and sorting it costs little next to the probes saved, but more than a walk that
-- stops at its limit when the heads come first (v_share in ordered_claim_pick;
-- docs/performance.md, "Ordered claim").
-- Placeholders: {{table}}, {{aggregate}}, {{sequence}}, {{window_filter}}.
CREATE OR REPLACE FUNCTION inbox.ordered_claim_candidates_template()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$SELECT w.tid, w.priority, w.seq, w.agg, w.s,
                           w.agg IS NULL OR w.s IS NULL
                               OR row_number() OVER (PARTITION BY w.agg ORDER BY w.s, w.seq) = 1 AS candidate
                    FROM (SELECT w.ctid AS tid, w.priority, w.seq, w.{{aggregate}} AS agg, w.{{sequence}} AS s
                          FROM {{table}} w
                          WHERE {{window_filter}}
                          ORDER BY w.priority, w.seq
                          LIMIT v_window) w$t$ $h$;

-- Phase 1's lock over window rows {{rows}} (a query of tid, priority and seq in claim order): the
-- heads among them, in claim order, up to what the batch still lacks, with their payloads' size.
-- Placeholders: {{table}}, {{max_retries}}, {{aggregate}}, {{candidate_blocked}}, {{rows}}.
CREATE OR REPLACE FUNCTION inbox.ordered_claim_lock_template()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$SELECT c.ctid AS tid,
                             CASE WHEN p_max_bytes IS NULL THEN 0
                                  ELSE coalesce(pg_column_size(c.payload), 0) END AS bytes
                      FROM ({{rows}}) win
                      JOIN {{table}} c ON c.ctid = win.tid  -- by TID: see num_nulls in the plain claim
                      WHERE {{c.still_claimable}}
                        AND (c.{{aggregate}} IS NULL OR NOT {{candidate_blocked}})
                      ORDER BY win.priority, win.seq
                      LIMIT v_limit - cardinality(v_tids)
                      FOR UPDATE OF c SKIP LOCKED$t$ $h$;

-- Phase 1 of the ordered claim over one window of the claim order (v_window messages, from the
-- start or, with {{after}}, after the previous window): lock the heads among them, up to what the
-- batch still lacks, adding their TIDs to v_tids and their payloads' size to v_bytes.
-- Placeholders: {{lock}} (ordered_claim_lock_template over the window's rows, v_window_rows in
-- rebuild_claim_function).
CREATE OR REPLACE FUNCTION inbox.ordered_claim_walk_template()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$SELECT v_tids || coalesce(array_agg(l.tid), '{}'), v_bytes + coalesce(sum(l.bytes), 0)
                  INTO v_tids, v_bytes
                FROM ({{lock}}) l;$t$ $h$;

-- Phase 1 as ordered_claim_walk_template, over the candidates of the first window only, for a
-- session whose last claim did not fill its limit; it also counts the window's messages (v_seen)
-- and candidates (v_aggregates) and notes its last message (v_end), from the one reading of the
-- window. Placeholders: {{candidates}} (ordered_claim_candidates_template), {{lock}}
-- (ordered_claim_lock_template over SELECT f.tid, f.priority, f.seq FROM cand f WHERE
-- f.candidate ORDER BY f.priority, f.seq).
CREATE OR REPLACE FUNCTION inbox.ordered_claim_candidates_walk_template()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$WITH cand AS MATERIALIZED ({{candidates}}), locked AS ({{lock}})
                SELECT v_tids || coalesce(l.tids, '{}'), v_bytes + coalesce(l.bytes, 0),
                       n.seen, n.candidates, n.last
                  INTO v_tids, v_bytes, v_seen, v_aggregates, v_end
                FROM (SELECT array_agg(l.tid) AS tids, sum(l.bytes) AS bytes FROM locked l) l,
                     (SELECT count(*) AS seen, count(*) FILTER (WHERE f.candidate) AS candidates,
                             max(ARRAY[f.priority::bigint, f.seq]) AS last
                      FROM cand f) n;$t$ $h$;

-- Phase 3 of the ordered claim, only with p_per_aggregate > 1 and room left in the batch: behind
-- each head the claim locked (v_tids), the messages of its aggregate that come right after it, up
-- to p_per_aggregate in all. A chain follows the aggregate's order (sequence, then arrival) through
-- <name>_ordering_idx, one range scan per chain and round, and stops at the first next message
-- that is not claimable now (backing off, dead, outside the buckets or the priority floor) or that
-- would come before its predecessor in the claim order (priority, seq): the batch is handed over
-- in claim order, so that order must be the aggregate's. Followers are taken by depth (every
-- aggregate's second message before any third), so a batch that runs out of room cuts chains at
-- their end. A round reads each chain only as deep as the room left, shared among the chains,
-- allows; chains that reach that depth are read on in the next round (three at most), so one hot
-- aggregate among heads without followers still fills the batch. One range per chain instead of
-- one index probe per message made a claim of 1,000 on one aggregate 0.79 of its cost
-- (docs/performance.md, "Ordered claim", item 10).
-- They are locked like heads (SKIP LOCKED); a follower another transaction holds ends its chain
-- there: only followers whose every predecessor this claim holds are kept (the rows locked after
-- a gap stay locked, unmarked, until the transaction ends: a delay, never a loss). In this
-- snapshot the heads this claim locked are still unprocessed, so "next unprocessed" starts right
-- behind them, and no other claim can take a follower: its head is held, and to every other
-- transaction it is no head. With a byte budget the batch is summed again over every row and cut
-- to the prefix that fits (claim order keeps a follower behind its predecessors).
-- Placeholders: {{table}}, {{aggregate}}, {{sequence}}, {{max_retries}}, {{budget_cut}}.
CREATE OR REPLACE FUNCTION inbox.ordered_claim_followers_template()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT $t$IF p_per_aggregate > 1 AND cardinality(v_tids) BETWEEN 1 AND p_limit - 1
                   AND (p_max_bytes IS NULL OR v_bytes < p_max_bytes) THEN  -- phase 1 left room
                    DECLARE
                        v_room integer := p_limit - cardinality(v_tids);
                        -- How far each chain is read in this round: the room left, shared among
                        -- the chains still being read.
                        v_cap integer := ceil(v_room::numeric / cardinality(v_tids))::integer;
                        -- The chains still being read: their last message so far, its depth (the
                        -- head is 1) and its head's place in v_tids.
                        v_front tid[] := v_tids;
                        v_front_depth integer[] := array_fill(1, ARRAY[cardinality(v_tids)]);
                        v_front_head integer[] := ARRAY(SELECT generate_series(1, cardinality(v_tids)));
                        -- The followers found: row, depth, head's place.
                        v_ftid tid[] := '{}';
                        v_fdepth integer[] := '{}';
                        v_fhead integer[] := '{}';
                    BEGIN
                        -- The followers are sorted by depth and aggregate (the function's SET
                        -- clause keeps this inside it).
                        PERFORM set_config('enable_sort', 'on', true);
                        -- Each chain's next messages come from one range of the ordering index,
                        -- as deep as the room shared among the chains (and p_per_aggregate)
                        -- allows; a chain ends before its first message that cannot be claimed
                        -- now or would come before its predecessor in the claim order. Chains
                        -- read to that depth without ending are read on in the next round, with
                        -- the room the others left (a hot aggregate among heads without
                        -- followers); three rounds at most.
                        FOR v_round IN 1 .. 3 LOOP
                            EXIT WHEN cardinality(v_front) = 0 OR cardinality(v_ftid) >= v_room;
                            WITH found AS MATERIALIZED (
                                SELECT t.head, n.tid, n.depth, n.unbroken,
                                       n.depth = least(t.depth + v_cap, p_per_aggregate) AS deepest
                                FROM unnest(v_front, v_front_depth, v_front_head) AS t(tid, depth, head)
                                JOIN {{table}} p ON p.ctid = t.tid
                                CROSS JOIN LATERAL (
                                    SELECT r.tid, r.depth, bool_and(r.ok) OVER (ORDER BY r.depth) AS unbroken
                                    FROM (SELECT f.tid, t.depth + row_number() OVER w AS depth,
                                                 f.retry_count < {{max_retries}} AND f.next_attempt_at <= now()
                                                 AND (v_mask IS NULL OR get_bit(v_mask, f.bucket) = 1)
                                                 AND (v_floor IS NULL OR f.priority > v_floor)
                                                 AND (f.priority, f.seq) > (lag(f.priority, 1, p.priority) OVER w,
                                                                            lag(f.seq, 1, p.seq) OVER w) AS ok
                                          FROM (SELECT f.ctid AS tid, f.{{sequence}} AS s, f.seq, f.priority,
                                                       f.retry_count, f.next_attempt_at, f.bucket
                                                FROM {{table}} f
                                                WHERE f.{{aggregate}} = p.{{aggregate}} AND {{f.unprocessed}}
                                                  AND (f.{{sequence}}, f.seq) > (p.{{sequence}}, p.seq)
                                                ORDER BY f.{{aggregate}}, f.{{sequence}}, f.seq
                                                LIMIT least(v_cap, p_per_aggregate - t.depth)) f
                                          WINDOW w AS (ORDER BY f.s, f.seq)) r) n
                                WHERE p.{{aggregate}} IS NOT NULL AND p.{{sequence}} IS NOT NULL AND n.unbroken
                            )
                            SELECT v_ftid || coalesce((SELECT array_agg(f.tid) FROM found f), '{}'),
                                   v_fdepth || coalesce((SELECT array_agg(f.depth) FROM found f), '{}'),
                                   v_fhead || coalesce((SELECT array_agg(f.head) FROM found f), '{}'),
                                   -- read to the round's depth without ending, and not at p_per_aggregate
                                   coalesce((SELECT array_agg(f.tid ORDER BY f.head) FROM found f
                                             WHERE f.deepest AND f.depth < p_per_aggregate), '{}'),
                                   coalesce((SELECT array_agg(f.depth ORDER BY f.head) FROM found f
                                             WHERE f.deepest AND f.depth < p_per_aggregate), '{}'),
                                   coalesce((SELECT array_agg(f.head ORDER BY f.head) FROM found f
                                             WHERE f.deepest AND f.depth < p_per_aggregate), '{}')
                              INTO v_ftid, v_fdepth, v_fhead, v_front, v_front_depth, v_front_head;
                            v_cap := ceil((v_room - cardinality(v_ftid))::numeric
                                          / greatest(cardinality(v_front), 1))::integer;
                        END LOOP;
                        WITH locked AS (
                            -- Every chain's second message before any third; then the heads' order.
                            SELECT m.ctid AS tid, m.{{aggregate}} AS agg, f.depth
                            FROM (SELECT f.tid, f.depth FROM unnest(v_ftid, v_fdepth, v_fhead) AS f(tid, depth, head)
                                  ORDER BY f.depth, f.head
                                  LIMIT v_room) f
                            JOIN {{table}} m ON m.ctid = f.tid  -- by TID: see num_nulls in the plain claim
                            WHERE {{m.still_claimable}}
                            FOR UPDATE OF m SKIP LOCKED
                        )
                        SELECT v_tids || coalesce(array_agg(k.tid), '{}') INTO v_tids
                        FROM (SELECT l.tid, l.depth,
                                     row_number() OVER (PARTITION BY l.agg ORDER BY l.depth) AS r
                              FROM locked l) k
                        WHERE k.r = k.depth - 1;  -- every predecessor held: depths 2 .. depth all locked
                    END;
                    IF p_max_bytes IS NOT NULL THEN
                        SELECT sum(coalesce(pg_column_size(b.payload), 0)) INTO v_bytes
                        FROM {{table}} b WHERE b.ctid = ANY (v_tids);
                        {{budget_cut}}
                    END IF;
                END IF;$t$ $h$;

-- claim_<name> with ordering: only the head of each aggregate (its earliest unprocessed message,
-- dead or backing off included) may be claimed. Two phases keep the cost bounded:
--  1. walk the claim order (priority, seq), testing each message for an earlier unprocessed one
--     of its aggregate, but at most a window of 2 * p_limit + 100 messages: with many aggregates
--     the heads come first and this is all it takes (in a session whose last claim did not fill
--     its limit, a window of p_limit + 100 and only each aggregate's earliest message in it: see
--     v_share);
--  2. only when phase 1 filled less than half the batch, at least p_limit of the window's
--     messages are blocked (not heads: a hot aggregate with a long queue at the front, or
--     followers of dead heads) and the window held fewer than p_limit heads (phase 1's and, held by other workers or not, those of other aggregates),
--     enumerate the aggregates' heads directly with a loose index scan over <name>_ordering_idx
--     (one descent per aggregate with unprocessed messages) and claim the best of those, by the
--     same claim order.
-- Between the two, a phase 1 that filled less than half the batch from a full window of mostly
-- heads walks the next window the same way: with several workers sharing every head, the first
-- window is mostly the heads the others hold.
-- Both phases only lock their rows (FOR UPDATE SKIP LOCKED) and collect their TIDs; one UPDATE at
-- the end marks them all and returns them in claim order. Phase 2 excludes the aggregates phase 1
-- took: one message per aggregate per claim. Each phase checks head-ness in its own snapshot,
-- where rows claimed by other uncommitted transactions (and phase 1's, still unmarked) are
-- unprocessed: two workers never hold one aggregate. A message may be claimed only when no earlier
-- message of its aggregate is unprocessed; rows the claiming transaction holds still look
-- unprocessed to every other worker.
-- The byte budget applies to both phases together, as in the plain claim: phase 1 sums its rows'
-- sizes in the statement that locks them and is cut to the prefix that fits only when the sum
-- passes the budget (generated_claim_budget_cut); phase 2 gets what is left. Marking in one
-- UPDATE after locking, instead of marking in the locking statement through a running sum and
-- collecting the rows into an array, made a claim of 100 heads 7 % cheaper with the worker's
-- default byte budget and 17 % without one (docs/performance.md, "Ordered claim").
-- With p_per_aggregate > 1 a third phase adds, behind the heads, the messages that follow them in
-- their aggregates (ordered_claim_followers_template). While this session's claims find deep
-- chains, the heads phases seek fewer heads (v_limit stands for p_limit above), and the room the
-- followers leave goes to more heads, walked from after the last head taken.
-- Placeholders: {{prelude}} (generated_claim_prelude), {{budget_cut}}, {{mark}}, {{followers}}, {{walk}} and {{walk_on}}
-- (ordered_claim_walk_template from the start of the claim order, and after v_end),
-- {{window_candidates}} (ordered_claim_candidates_template), {{window_filter}}
-- (the claimable messages of window row w, in the buckets and above the priority floor), {{table}},
-- {{max_retries}}, {{aggregate}} (the quoted aggregate column), {{window_blocked}}
-- (earlier_unprocessed_sql of window row win), {{heads}} (aggregate_heads_sql), {{walk_candidates}}
-- (ordered_claim_candidates_walk_template), {{share}} and {{runs}} (the quoted names of the
-- session settings described in the body), {{floor_declarations}} and {{floors}} (the claim
-- floors, as in the plain claim), {{floor_filter_u}} (the floors' test of message u).
-- The walks of the claim order (phase 1, and the messages without an aggregate in phase 2) start
-- at the claim floors: the claimed messages before them, which stay in the claim index while the
-- xmin horizon is held, are not read again. On an inbox ordered by seq, the head tests and phase
-- 2's enumeration of the aggregates start at the order floor (earlier_unprocessed_sql,
-- aggregate_heads_sql); ordered by another column, they still read each aggregate's claimed
-- messages (docs/performance.md, "Claim floors").
CREATE OR REPLACE FUNCTION inbox.ordered_claim_pick()
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $h$ SELECT jsonb_build_object('declarations', $t$v_floor integer;  -- claim only priorities after this one (NULL: all)
                -- The heads phases (1 and 2) seek v_limit heads: p_limit, unless this session's
                -- last claim with runs (p_per_aggregate > 1) filled its batch with followers
                -- (session setting {{runs}} is "deep"). Then a claim seeks heads for a tenth of
                -- the batch (or 1 / p_per_aggregate of it, if more), the followers behind them
                -- fill the rest, and only the room they leave goes to more heads. A follower read
                -- one deep behind its head cost twice a head, so two workers whose buckets held
                -- half a batch of heads each claimed at 1.31x the cost per message of heads
                -- alone, and drained slower with runs than without; ten deep it costs what a head
                -- does. Without deep chains, seeking fewer heads first cost the claim the
                -- followers' search and a second walk (1.07-1.15x), so the claim only does it
                -- while chains are deep (docs/performance.md, "Ordered claim", item 10).
                v_limit integer := CASE WHEN p_per_aggregate > 1 AND current_setting({{runs}}, true) = 'deep'
                                        THEN ceil(p_limit::numeric / least(p_per_aggregate, 10))::integer
                                        ELSE p_limit END;
                v_found integer;   -- the heads phases' rows
                v_window integer;  -- messages a window holds at most
                v_tids tid[] := '{}';  -- the rows this claim locked: phase 1's, phase 2's, then followers
                v_bytes bigint := 0;   -- phase 1's payloads' size
                v_walked integer;  -- blocked messages (not heads) in the window
                v_heads integer;   -- heads in the window, held by others or not, of other aggregates
                v_seen integer;    -- messages in the window
                v_aggregates integer;  -- and their aggregates or candidates (a message without one counts as one)
                v_end bigint[];    -- the window's last message in claim order: {priority, seq}
                -- What this session's claims of the inbox found lately (session setting {{share}},
                -- set only when a claim's transaction commits): empty after a claim that filled
                -- its limit, else "k/n". A claim that does not fill its limit read its whole
                -- window; with several workers each claiming its buckets (or few aggregates) that
                -- window is mostly each aggregate's next messages, and probing every one of them
                -- cost more than the claim's heads did. While the setting is "k/n", phase 1 reads
                -- the window once and probes only its candidates (ordered_claim_candidates_template):
                -- a single worker whose heads fill its claims from the front of the window keeps
                -- the walk that stops at its limit, as reading and sorting the whole window cost
                -- it a tenth at batch 1,000. n is the heads phase 1 found when a phase 2 last found
                -- nothing beside them (0: none did since): phase 2 enumerated every aggregate
                -- (one descent each) to find nothing, at up to half the claim's cost, every claim.
                -- Then the next k (7) claims whose phase 1 finds at least n / 2 heads skip phase 2
                -- and its test: heads behind a window of blocked messages wait at most seven
                -- claims that each handed out half as much work, and a claim that finds less (the
                -- window changed, or nothing) never skips.
                v_share text := current_setting({{share}}, true);
                -- This session's last claim did not fill its limit: v_share is "k/n" (an empty or
                -- hand-set value is not).
                v_short boolean := coalesce(v_share ~ '^[0-7]/[0-9]{1,9}$', false);
                v_before integer;  -- rows locked before phase 2
                v_next text;       -- v_share after this claim
                {{floor_declarations}}$t$,
    'start', $t${{prelude}}
                {{floors}}$t$,
    'pick', $t$IF v_short THEN
                    -- Without the slack for heads behind followers: this session's claims do not
                    -- fill their limit, and the window's second half was followers it read for
                    -- nothing (with two workers at the limit they set, 625, 1.14x the claims).
                    v_window := v_limit + 100;
                    {{walk_candidates}}
                ELSE
                    v_window := 2 * v_limit + 100;
                    {{walk}}
                END IF;

                -- Phase 1 again, over the next window of as many messages, when the window gave
                -- less than half the batch although it was full and mostly heads. Workers sharing
                -- every head all claim from the front of the claim order, so with several of them
                -- the window is the heads the others hold: four workers at batch 100 hold 300
                -- heads, a whole window, and the claim came back empty while free heads waited
                -- right behind it. A window of followers (a hot aggregate's queue, or every
                -- aggregate's next messages when a batch is as large as the aggregates) has the
                -- heads within it: walking on finds only more followers, so it does not. One
                -- window more only.
                IF 2 * cardinality(v_tids) < v_limit AND (p_max_bytes IS NULL OR v_bytes < p_max_bytes) THEN
                    IF v_seen IS NULL THEN  -- not counted by the walk
                        SELECT count(*), count(DISTINCT win.agg) + count(*) FILTER (WHERE win.agg IS NULL),
                               max(ARRAY[win.priority::bigint, win.seq])
                          INTO v_seen, v_aggregates, v_end
                        FROM (SELECT w.{{aggregate}} AS agg, w.priority, w.seq FROM {{table}} w
                              WHERE {{window_filter}}
                              ORDER BY w.priority, w.seq
                              LIMIT v_window) win;
                    END IF;
                    IF v_seen = v_window AND v_seen - v_aggregates < v_limit THEN
                        {{walk_on}}
                    END IF;
                END IF;
                {{budget_cut}}

                v_next := CASE WHEN cardinality(v_tids) >= v_limit THEN ''
                               WHEN v_short THEN v_share ELSE '0/0' END;
                IF 2 * cardinality(v_tids) < v_limit AND cardinality(v_tids) > 0
                   AND v_short AND v_share !~ '^0/'
                   AND 2 * cardinality(v_tids) >= split_part(v_share, '/', 2)::integer THEN
                    v_next := (split_part(v_share, '/', 1)::integer - 1) || '/' || split_part(v_share, '/', 2);
                -- A byte budget that phase 1 used up leaves nothing for phase 2. Nor does a phase
                -- 1 that filled half the batch need it: the window had heads, and testing the
                -- window again for the rule below doubled the cost of every claim that shares the
                -- heads with another worker's.
                ELSIF 2 * cardinality(v_tids) < v_limit
                   AND (p_max_bytes IS NULL OR cardinality(v_tids) = 0 OR v_bytes < p_max_bytes) THEN
                    -- Phase 2 only when blocked messages (not heads) crowd the window. A window
                    -- that is merely full of messages other claims hold or just committed (two
                    -- workers claiming side by side) is no reason: the next claim reaches what
                    -- lies behind them, and enumerating every aggregate's head under concurrent
                    -- claims cost seconds (docs/performance.md, "Ordered claim"). Nor is a window
                    -- that held a batch's worth of heads (this claim's, or other aggregates' heads
                    -- that other workers hold): the followers crowding it wait behind heads in the
                    -- window, and every aggregate is likely in it already. Heads of the aggregates
                    -- phase 1 took do not count.
                    SELECT count(*) FILTER (WHERE b.blocked),
                           count(*) FILTER (WHERE NOT b.blocked AND (b.agg IS NULL OR NOT b.agg = ANY (ARRAY(
                               SELECT f.{{aggregate}} FROM {{table}} f
                               WHERE f.ctid = ANY (v_tids) AND f.{{aggregate}} IS NOT NULL))))
                      INTO v_walked, v_heads
                    -- Only candidates are probed (OFFSET 0 keeps the probe in one place: inlined,
                    -- both counts evaluated it).
                    FROM (SELECT win.agg, (win.agg IS NOT NULL AND (NOT win.candidate OR {{window_blocked}})) AS blocked
                          FROM ({{window_candidates}}) win
                          OFFSET 0) b;
                    IF v_walked >= greatest(v_limit, 1) AND v_heads + cardinality(v_tids) < v_limit THEN
                        v_before := cardinality(v_tids);
                        -- The heads arrive in aggregate order and must be sorted into claim
                        -- order: without a sort the planner would walk the whole claim index
                        -- filtering on ctid, the very walk this phase avoids. (The function's
                        -- SET clause keeps this setting inside the function.)
                        PERFORM set_config('enable_sort', 'on', true);
                        WITH RECURSIVE {{heads}}
                        SELECT v_tids || coalesce(array_agg(l.tid), '{}') INTO v_tids
                        FROM (
                            SELECT l.tid, row_number() OVER w AS n, sum(l.bytes) OVER w AS upto
                            FROM (
                            SELECT c.ctid AS tid, c.priority, c.seq,
                                   CASE WHEN p_max_bytes IS NULL THEN 0
                                        ELSE coalesce(pg_column_size(c.payload), 0) END AS bytes
                            FROM {{table}} c
                            WHERE c.ctid = ANY (ARRAY(
                                    SELECT heads.tid FROM heads
                                    UNION ALL
                                    (SELECT u.ctid FROM {{table}} u
                                     WHERE u.{{aggregate}} IS NULL AND {{u.claimable}} AND {{floor_filter_u}}
                                       AND (v_mask IS NULL OR get_bit(v_mask, u.bucket) = 1)
                                       AND (v_floor IS NULL OR u.priority > v_floor)
                                     ORDER BY u.priority, u.seq
                                     LIMIT v_limit)))
                              AND {{c.still_claimable}}
                              AND (v_mask IS NULL OR get_bit(v_mask, c.bucket) = 1)
                              AND (v_floor IS NULL OR c.priority > v_floor)
                              AND (c.{{aggregate}} IS NULL OR NOT c.{{aggregate}} = ANY (ARRAY(
                                    SELECT f.{{aggregate}} FROM {{table}} f
                                    WHERE f.ctid = ANY (v_tids) AND f.{{aggregate}} IS NOT NULL)))
                            ORDER BY c.priority, c.seq
                            LIMIT v_limit - cardinality(v_tids)
                            FOR UPDATE OF c SKIP LOCKED) l
                            WINDOW w AS (ORDER BY l.priority, l.seq ROWS UNBOUNDED PRECEDING)) l
                        WHERE p_max_bytes IS NULL OR l.upto <= p_max_bytes - v_bytes
                           OR (l.n = 1 AND cardinality(v_tids) = 0);
                        v_next := CASE WHEN cardinality(v_tids) = v_before AND v_before > 0 THEN '7/' || v_before
                                       WHEN cardinality(v_tids) >= v_limit THEN '' ELSE '0/0' END;
                    END IF;
                END IF;
                IF v_next IS DISTINCT FROM coalesce(v_share, '') THEN
                    PERFORM set_config({{share}}, v_next, false);
                END IF;
                v_found := cardinality(v_tids);
                {{followers}}
                IF p_per_aggregate > 1 AND v_found BETWEEN 1 AND p_limit - 1
                   AND (cardinality(v_tids) >= p_limit) <> (coalesce(current_setting({{runs}}, true), '') = 'deep') THEN
                    -- Followers were looked for: whether they filled the batch decides the next
                    -- claim's v_limit (kept only if this transaction commits).
                    PERFORM set_config({{runs}}, CASE WHEN cardinality(v_tids) >= p_limit THEN 'deep' ELSE '' END, false);
                END IF;
                -- Room the followers left, after heads phases that found all they sought (there
                -- may be more): more heads, from the claim order after the last head taken
                -- (followers in that stretch are blocked by their heads, which this claim holds).
                IF v_limit < p_limit AND v_found >= v_limit AND cardinality(v_tids) < p_limit
                   AND (p_max_bytes IS NULL OR v_bytes < p_max_bytes) THEN
                    SELECT max(ARRAY[h.priority::bigint, h.seq]) INTO v_end
                    FROM {{table}} h WHERE h.ctid = ANY (v_tids[1:v_found]);
                    v_limit := p_limit;
                    v_window := 2 * (p_limit - cardinality(v_tids)) + 100;
                    {{walk_on}}
                    {{budget_cut}}
                END IF;

                {{mark}}
                IF NOT FOUND AND v_floor IS NOT NULL THEN
                    -- Below the top, no head could be claimed: an ordinary claim.
                    RETURN QUERY SELECT * FROM {{function}}(p_limit, p_buckets, p_max_bytes, false, p_per_aggregate);
                END IF;$t$) $h$;

-- claim_<name>: a managed inbox's, plain or ordered, or a tracked table's (definitions/tracking.sql), each
-- from the claim skeleton and its pick.
CREATE OR REPLACE FUNCTION inbox.rebuild_claim_function(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    o inbox.inbox_ordering_config;
    v_table text := inbox.inbox_table(c);
    -- The rows of an ordered claim's window, for ordered_claim_lock_template.
    v_window_rows text := 'SELECT w.ctid AS tid, w.priority, w.seq FROM {{table}} w'
        ' WHERE {{window_filter}} {{after}} ORDER BY w.priority, w.seq LIMIT v_window';
    -- The claim floors of an ordered claim's walks of the claim order, for message {{m}}: from the
    -- first level's floor (a bound of the claim index's range), and at or above its own level's.
    v_floor_filter text := $f$({{m}}.priority, {{m}}.seq) >= (coalesce(v_levels[1], '-2147483648'::integer),
                              coalesce(v_from[1], '-9223372036854775808'::bigint))
                              AND {{m}}.seq >= coalesce(v_from[array_position(v_levels, {{m}}.priority)],
                                                        '-9223372036854775808'::bigint)$f$;
    -- The head test's order floor, from the claim's floors and the resets they were moved after.
    v_order_floor text := inbox.order_floor_sql('nullif(v_state[10], '''')::bigint', 'v_state[8]::bigint');
    v_dead text := inbox.vocabulary(c, 'd') ->> 'dead';
    -- The names of inbox.vocabulary over the rows the templates speak of ({{w.claimable}}, ...).
    v_values jsonb := inbox.vocabulary_over(c, ARRAY['c', 'f', 'm', 'u', 'w']) || jsonb_build_object(
        'function', format('inbox.%I', 'claim_' || c.inbox_name),
        'table', v_table,
        'max_retries', c.max_retries);
BEGIN
    IF NOT c.managed THEN
        PERFORM inbox.rebuild_tracked_claim_function(c);
        RETURN;
    END IF;
    v_values := v_values || jsonb_build_object(
        'returns', 'SETOF ' || v_table,
        'settings', inbox.managed_claim_settings(),
        'directives', '',
        'prelude', inbox.sql_template(inbox.generated_claim_prelude(), v_values),
        'budget_cut', inbox.sql_template(inbox.generated_claim_budget_cut(), v_values),
        'mark', inbox.sql_template(inbox.generated_claim_mark(), v_values));
    v_values := v_values || inbox.claim_floor_parts(c, inbox.priority_levels(c), inbox.seq_ordering_aggregate(c.inbox_name));
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = c.inbox_name;
    IF NOT FOUND THEN
        PERFORM inbox.create_claim_function(v_values, inbox.plain_claim_pick());
        RETURN;
    END IF;
    v_values := v_values || jsonb_build_object(
        'aggregate', format('%I', o.aggregate_column),
        'sequence', format('%I', o.sequence_column),
        'candidate_blocked', inbox.earlier_unprocessed_sql(v_table, o.aggregate_column, o.sequence_column,
            format('c.%I', o.aggregate_column), format('c.%I', o.sequence_column), 'c.seq', v_order_floor, v_dead),
        'window_blocked', inbox.earlier_unprocessed_sql(v_table, o.aggregate_column, o.sequence_column,
            'win.agg', 'win.s', 'win.seq', v_order_floor, v_dead),
        'heads', inbox.aggregate_heads_sql(v_table, o.aggregate_column, o.sequence_column, v_order_floor, v_dead));
    v_values := v_values || jsonb_build_object(
        'floor_filter_u', replace(v_floor_filter, '{{m}}', 'u'),
        'window_filter', inbox.sql_template(
        '{{w.claimable}}
                              AND (v_mask IS NULL OR get_bit(v_mask, w.bucket) = 1)
                              AND (v_floor IS NULL OR w.priority > v_floor)
                              AND ' || replace(v_floor_filter, '{{m}}', 'w'), v_values));
    v_values := v_values || jsonb_build_object(
        'followers', inbox.sql_template(inbox.ordered_claim_followers_template(), v_values),
        'window_candidates', inbox.sql_template(inbox.ordered_claim_candidates_template(), v_values),
        'share', quote_literal('pginbox_claim_share.' || c.inbox_name),
        'runs', quote_literal('pginbox_claim_runs.' || c.inbox_name),
        'rows', inbox.sql_template(v_window_rows, v_values || '{"after": ""}'),
        'rows_on', inbox.sql_template(v_window_rows, v_values
            || '{"after": "AND (w.priority, w.seq) > (v_end[1]::integer, v_end[2])"}'));
    v_values := v_values || jsonb_build_object(
        'walk', inbox.sql_template(inbox.ordered_claim_walk_template(), jsonb_build_object(
            'lock', inbox.sql_template(inbox.ordered_claim_lock_template(), v_values))),
        'walk_on', inbox.sql_template(inbox.ordered_claim_walk_template(), jsonb_build_object(
            'lock', inbox.sql_template(inbox.ordered_claim_lock_template(),
                v_values || jsonb_build_object('rows', v_values ->> 'rows_on')))),
        'walk_candidates', inbox.sql_template(inbox.ordered_claim_candidates_walk_template(), jsonb_build_object(
            'candidates', v_values ->> 'window_candidates',
            'lock', inbox.sql_template(inbox.ordered_claim_lock_template(), v_values || jsonb_build_object(
                'rows', 'SELECT f.tid, f.priority, f.seq FROM cand f WHERE f.candidate ORDER BY f.priority, f.seq')))));
    PERFORM inbox.create_claim_function(v_values, inbox.ordered_claim_pick());
END;
$$;

-- (Re)creates everything derived from an inbox's catalog rows (see the list at the top) and
-- records the schema version that made them.
CREATE OR REPLACE FUNCTION inbox.rebuild_inbox_objects(p_inbox text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    PERFORM inbox.rebuild_priority_function(c);
    PERFORM inbox.create_derive_triggers(c);
    -- Before the views: those of a tracked table may read it.
    PERFORM inbox.create_retry_state_table(c);
    PERFORM inbox.create_message_indexes(c);
    PERFORM inbox.create_notify_trigger(c);
    PERFORM inbox.rebuild_payload_limit_trigger(c);
    PERFORM inbox.rebuild_views(c);
    PERFORM inbox.rebuild_claim_function(c);
    -- The send function and the grants of the group roles and of inbox.grant_inbox (definitions/roles.sql):
    -- new objects get them, and nothing is lost on a re-install.
    PERFORM inbox.apply_inbox_grants(p_inbox);
    UPDATE inbox.inbox_config SET objects_version = inbox.schema_version() WHERE inbox_name = p_inbox;
END;
$$;

-- The options of create_inbox and alter_inbox that must hold together; invalid_parameter_value
-- (22023) otherwise.
CREATE OR REPLACE FUNCTION inbox.check_inbox_options(p_max_retries integer, p_backoff_base interval,
    p_backoff_max interval, p_degraded_age_seconds integer, p_critical_age_seconds integer,
    p_degraded_pending bigint, p_critical_pending bigint)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_max_retries IS NULL OR p_max_retries < 1 THEN
        RAISE EXCEPTION 'max retries must be at least 1, got %', p_max_retries USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_degraded_age_seconds IS NULL OR p_critical_age_seconds IS NULL OR p_degraded_pending IS NULL
       OR p_critical_pending IS NULL OR p_degraded_age_seconds < 0 OR p_degraded_pending < 0
       OR p_critical_age_seconds < p_degraded_age_seconds OR p_critical_pending < p_degraded_pending THEN
        RAISE EXCEPTION 'health thresholds must satisfy 0 <= degraded <= critical' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_backoff_base IS NULL OR p_backoff_max IS NULL OR p_backoff_base < interval '0' OR p_backoff_max < p_backoff_base THEN
        RAISE EXCEPTION 'backoff must satisfy 0 <= base <= max, got base % and max %', p_backoff_base, p_backoff_max
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION inbox.create_inbox(
    p_name                  text,
    p_max_retries           integer DEFAULT 3,
    p_retention_hours       integer DEFAULT 72,
    p_dlq_retention_hours   integer DEFAULT 168,
    p_dedup_retention_hours integer DEFAULT NULL,
    p_channel               text DEFAULT NULL,
    p_backoff_base          interval DEFAULT interval '1 second',
    p_backoff_max           interval DEFAULT interval '5 minutes',
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
    v_channel text := coalesce(p_channel, 'inbox_' || p_name);
    c inbox.inbox_config;
BEGIN
    IF p_retention_hours IS NULL OR p_retention_hours < 0 OR p_dlq_retention_hours IS NULL OR p_dlq_retention_hours < 0
       OR p_dedup_retention_hours < 0 THEN
        RAISE EXCEPTION 'retention hours must not be negative' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM inbox.check_inbox_options(p_max_retries, p_backoff_base, p_backoff_max, p_degraded_age_seconds,
        p_critical_age_seconds, p_degraded_pending, p_critical_pending);
    IF v_channel !~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$' THEN
        RAISE EXCEPTION 'invalid channel name %', quote_literal(v_channel) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM inbox.lock_catalog();
    IF EXISTS (SELECT 1 FROM inbox.inbox_config WHERE inbox_name = v_name) THEN
        RAISE EXCEPTION 'inbox % already exists', quote_literal(v_name) USING ERRCODE = 'duplicate_object';
    END IF;
    PERFORM inbox.check_free_names(v_name);
    IF to_regclass(format('inbox.%I', v_name)) IS NOT NULL THEN
        RAISE EXCEPTION 'inbox.% already exists and is not an inbox; use enable_inbox_tracking for an existing table', v_name
            USING ERRCODE = 'duplicate_table';
    END IF;

    INSERT INTO inbox.inbox_config (inbox_name, table_schema, table_name, managed, max_retries,
        processed_retention, dlq_retention, dedup_retention, backoff_base, backoff_max,
        degraded_age_seconds, critical_age_seconds, degraded_pending, critical_pending, notify_channel)
    VALUES (v_name, 'inbox', v_name, true, p_max_retries,
        make_interval(hours => p_retention_hours), make_interval(hours => p_dlq_retention_hours),
        make_interval(hours => p_dedup_retention_hours), p_backoff_base, p_backoff_max,
        p_degraded_age_seconds, p_critical_age_seconds, p_degraded_pending, p_critical_pending, v_channel)
    RETURNING * INTO c;

    PERFORM inbox.create_message_table(c);
    PERFORM inbox.rebuild_inbox_objects(v_name);
    PERFORM inbox.log_operator_action('create_inbox', v_name, jsonb_build_object('max_retries', p_max_retries), NULL);
END;
$$;

CREATE OR REPLACE FUNCTION inbox.notify_inbox_insert()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], TG_ARGV[1]);
    RETURN NULL;
END;
$$;

-- The largest payload a managed inbox accepts, in bytes (NULL: no limit, the default). An INSERT
-- of a bigger payload fails with 54000 (program_limit_exceeded) and a message that names the
-- event id, never the payload; the rest of its statement is rolled back with it. Messages already
-- stored are not checked.
CREATE OR REPLACE FUNCTION inbox.set_max_payload_size(p_inbox text, p_max_bytes integer)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.managed_config_of(p_inbox, 'set_max_payload_size');
BEGIN
    IF p_max_bytes < 1 THEN
        RAISE EXCEPTION 'maximum payload size must be at least 1 byte, got %', p_max_bytes
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE inbox.inbox_config SET max_payload_bytes = p_max_bytes WHERE inbox_name = p_inbox;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
END;
$$;

-- Changes the options of an existing inbox (create_inbox's, but the channel): a NULL argument keeps
-- the stored value; p_dedup_retention_hours 0 goes back to "as long as the processed retention".
-- Returns what changed, {"option": {"from": old, "to": new}, ...} ({} when nothing did), which is
-- also what the audit log records. A new max_retries makes the claim and dead-letter indexes again
-- (their predicates hold it): the table takes no writes while they build, a few seconds per million
-- waiting messages. Dead letters it turns into waiting messages (a higher max_retries) are claimed
-- again at once (inbox.reset_claim_floors); messages it turns into dead letters (a lower one) are
-- dead at once.
CREATE OR REPLACE FUNCTION inbox.alter_inbox(
    p_inbox                 text,
    p_max_retries           integer DEFAULT NULL,
    p_retention_hours       integer DEFAULT NULL,
    p_dlq_retention_hours   integer DEFAULT NULL,
    p_dedup_retention_hours integer DEFAULT NULL,
    p_backoff_base          interval DEFAULT NULL,
    p_backoff_max           interval DEFAULT NULL,
    p_degraded_age_seconds  integer DEFAULT NULL,
    p_critical_age_seconds  integer DEFAULT NULL,
    p_degraded_pending      bigint DEFAULT NULL,
    p_critical_pending      bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    c inbox.inbox_config;
    n inbox.inbox_config;
    v_changes jsonb;
    v_index text;
BEGIN
    IF p_retention_hours < 0 OR p_dlq_retention_hours < 0 OR p_dedup_retention_hours < 0 THEN
        RAISE EXCEPTION 'retention hours must not be negative' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM inbox.lock_catalog();
    c := inbox.inbox_config_of(p_inbox);
    n := c;
    n.max_retries := coalesce(p_max_retries, c.max_retries);
    n.processed_retention := coalesce(make_interval(hours => p_retention_hours), c.processed_retention);
    n.dlq_retention := coalesce(make_interval(hours => p_dlq_retention_hours), c.dlq_retention);
    n.dedup_retention := CASE WHEN p_dedup_retention_hours IS NULL THEN c.dedup_retention
                              WHEN p_dedup_retention_hours = 0 THEN NULL
                              ELSE make_interval(hours => p_dedup_retention_hours) END;
    n.backoff_base := coalesce(p_backoff_base, c.backoff_base);
    n.backoff_max := coalesce(p_backoff_max, c.backoff_max);
    n.degraded_age_seconds := coalesce(p_degraded_age_seconds, c.degraded_age_seconds);
    n.critical_age_seconds := coalesce(p_critical_age_seconds, c.critical_age_seconds);
    n.degraded_pending := coalesce(p_degraded_pending, c.degraded_pending);
    n.critical_pending := coalesce(p_critical_pending, c.critical_pending);
    PERFORM inbox.check_inbox_options(n.max_retries, n.backoff_base, n.backoff_max, n.degraded_age_seconds,
        n.critical_age_seconds, n.degraded_pending, n.critical_pending);
    SELECT jsonb_object_agg(o.key, jsonb_build_object('from', o.value, 'to', x.value) ORDER BY o.key)
      INTO v_changes
      FROM jsonb_each(to_jsonb(c)) o JOIN jsonb_each(to_jsonb(n)) x ON x.key = o.key
     WHERE o.value IS DISTINCT FROM x.value;
    IF v_changes IS NULL THEN
        RETURN '{}';
    END IF;
    UPDATE inbox.inbox_config
       SET max_retries = n.max_retries, processed_retention = n.processed_retention,
           dlq_retention = n.dlq_retention, dedup_retention = n.dedup_retention,
           backoff_base = n.backoff_base, backoff_max = n.backoff_max,
           degraded_age_seconds = n.degraded_age_seconds, critical_age_seconds = n.critical_age_seconds,
           degraded_pending = n.degraded_pending, critical_pending = n.critical_pending
     WHERE inbox_name = p_inbox;
    IF n.max_retries <> c.max_retries THEN
        FOREACH v_index IN ARRAY ARRAY[p_inbox || '_claim_idx', p_inbox || '_dlq_idx', p_inbox || '_ordering_dead_idx'] LOOP
            IF c.managed AND inbox.belongs_to_inbox(c, v_index) THEN
                EXECUTE format('DROP INDEX IF EXISTS inbox.%I', v_index);
            END IF;
        END LOOP;
        PERFORM inbox.reset_claim_floors();
    END IF;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);
    PERFORM inbox.log_operator_action('alter_inbox', p_inbox, v_changes, NULL);
    RETURN v_changes;
END;
$$;

-- Drops the views, functions and catalog rows of an inbox. The message table is kept unless
-- p_cascade; a tracked (bring-your-own) table is never dropped, and loses what tracking added
-- (the notification trigger) while the inbox's side table goes.
CREATE OR REPLACE FUNCTION inbox.drop_inbox(p_name text, p_cascade boolean DEFAULT false, p_if_exists boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    c inbox.inbox_config;
    v_trigger text;
BEGIN
    PERFORM inbox.check_inbox_name(p_name);
    PERFORM inbox.lock_catalog();
    SELECT * INTO c FROM inbox.inbox_config WHERE inbox_name = p_name;
    IF NOT FOUND THEN
        IF p_if_exists THEN
            RETURN;
        END IF;
        PERFORM inbox.inbox_config_of(p_name);  -- raises the standard error
    END IF;
    PERFORM inbox.replace_view(c, v_view, NULL)
    FROM unnest(ARRAY[p_name || '_pending', p_name || '_dlq', p_name || '_stats', 'next_' || p_name]) AS v_view;
    IF c.managed THEN
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(integer, integer[], bigint, boolean, integer)', 'claim_' || p_name);
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(integer, integer[], bigint, boolean)', 'claim_' || p_name);
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(text[], text[], text[], text[], jsonb[], text[])', 'send_' || p_name);
        IF p_cascade THEN
            EXECUTE format('DROP TABLE IF EXISTS %s', inbox.inbox_table(c));
        ELSE
            -- The kept table stays a plain table: no trigger pointing at a dropped inbox.
            FOREACH v_trigger IN ARRAY ARRAY[p_name || '_notify', p_name || '_derive', p_name || '_derive_on_update',
                                            p_name || '_payload_kept'] LOOP
                EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', v_trigger, inbox.inbox_table(c));
            END LOOP;
        END IF;
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I()', 'derive_' || p_name);
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(text, text, text)', 'priority_of_' || p_name);
    ELSE
        -- Everything tracking added, and nothing else: the table is left as it was before.
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(integer, integer[], bigint, boolean, integer)', 'claim_' || p_name);
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(integer, integer[], bigint, boolean)', 'claim_' || p_name);
        IF c.notify_trigger AND to_regclass(inbox.inbox_table(c)) IS NOT NULL THEN
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', p_name || '_notify', inbox.inbox_table(c));
        END IF;
        IF inbox.belongs_to_inbox(c, p_name || '_retry_state') THEN
            EXECUTE format('DROP TABLE IF EXISTS %s', inbox.retry_state_table(c));
        END IF;
        IF c.tracked_privileges IS NOT NULL AND to_regclass(inbox.inbox_table(c)) IS NOT NULL THEN
            PERFORM inbox.restore_tracked_privileges(inbox.inbox_table(c)::regclass, c.tracked_privileges);
        END IF;
        IF c.tracked_privileges ? 'sequence' AND inbox.arrival_sequence(c) IS NOT NULL THEN
            PERFORM inbox.restore_tracked_privileges(inbox.arrival_sequence(c),
                jsonb_build_object('table', c.tracked_privileges -> 'sequence', 'columns', '{}'::jsonb));
        END IF;
    END IF;
    DELETE FROM inbox.inbox_config WHERE inbox_name = p_name;
    PERFORM inbox.log_operator_action('drop_inbox', p_name, jsonb_build_object('cascade', p_cascade), NULL);
END;
$$;
