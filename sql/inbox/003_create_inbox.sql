-- create_inbox / drop_inbox and the derived objects (views, claim function) of an inbox.

-- (Re)creates everything derived from an inbox's catalog rows: the views _pending, _dlq,
-- _stats and (with ordering) next_<name>, and for a managed inbox the claim function.
-- Called by create_inbox, enable_inbox_ordering, enable_inbox_priority and enable_inbox_tracking.
CREATE OR REPLACE FUNCTION inbox.rebuild_inbox_objects(p_inbox text)
RETURNS void
LANGUAGE plpgsql
-- No NOTICE per "DROP VIEW IF EXISTS" of a view that is not there yet.
SET client_min_messages = warning
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    p inbox.inbox_priority_config;
    v_table text := inbox.inbox_table(c);
    v_pending text;      -- predicate: waiting to be processed (not dead)
    v_dead text;         -- predicate: dead letter
    v_priority text;     -- expression: claim priority (lower first)
    v_arrival text;      -- expression list: arrival order
    v_order text;        -- ORDER BY of _pending and of the claim
    v_head_guard text := '';
    -- The start of both claim functions (%1$I their name, %2$s the table). A queue table's
    -- statistics are always stale (rows come and go between analyzes); believing the backlog tiny,
    -- the planner picked a bitmap scan of the whole backlog plus a sort (25 ms instead of 1.6 ms
    -- for 100 of 100,000). The claim must walk the claim index in order, so the alternatives are
    -- off inside the function. Their penalty costs would trigger JIT compilation (~400 ms a
    -- call), so JIT is off too.
    v_claim_head text := $h$
            CREATE OR REPLACE FUNCTION inbox.%1$I(p_limit integer, p_buckets integer[] DEFAULT NULL)
            RETURNS SETOF %2$s
            LANGUAGE plpgsql
            SET enable_bitmapscan = off SET enable_sort = off SET enable_seqscan = off SET jit = off
            AS $body$
            DECLARE
                v_mask varbit := inbox.inbox_bucket_mask(p_buckets);  -- NULL: every bucket$h$;
BEGIN
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    SELECT * INTO p FROM inbox.inbox_priority_config WHERE inbox_name = p_inbox;

    IF c.retry_count_column IS NULL THEN
        v_pending := format('m.%I IS NULL', c.processed_at_column);
        v_dead := 'false';
    ELSIF NOT c.managed THEN
        -- A tracked table's retry counter may be nullable: NULL means no failure yet.
        v_pending := format('m.%I IS NULL AND coalesce(m.%I, 0) < %s',
            c.processed_at_column, c.retry_count_column, c.max_retries);
        v_dead := format('m.%I IS NULL AND coalesce(m.%I, 0) >= %s',
            c.processed_at_column, c.retry_count_column, c.max_retries);
    ELSE
        v_pending := format('m.%I IS NULL AND m.%I < %s',
            c.processed_at_column, c.retry_count_column, c.max_retries);
        v_dead := format('m.%I IS NULL AND m.%I >= %s',
            c.processed_at_column, c.retry_count_column, c.max_retries);
    END IF;

    IF c.managed THEN
        v_priority := 'm.priority';
        v_arrival := 'm.seq';
    ELSE
        v_priority := CASE WHEN p.inbox_name IS NULL THEN '999'
            ELSE format('coalesce((%L::jsonb ->> m.%I::text)::integer, %s)',
                        p.priority_map, p.priority_column, p.default_priority) END;
        v_arrival := CASE WHEN c.received_at_column IS NULL THEN format('m.%I', c.id_column)
            ELSE format('m.%I, m.%I', c.received_at_column, c.id_column) END;
    END IF;
    -- A bare constant in ORDER BY would be read as a column position: leave it out.
    v_order := CASE WHEN v_priority = '999' THEN v_arrival ELSE v_priority || ', ' || v_arrival END;

    EXECUTE format('DROP VIEW IF EXISTS inbox.%I', p_inbox || '_pending');
    EXECUTE format('CREATE VIEW inbox.%I AS SELECT m.* FROM %s m WHERE %s ORDER BY %s',
        p_inbox || '_pending', v_table, v_pending, v_order);

    EXECUTE format('DROP VIEW IF EXISTS inbox.%I', p_inbox || '_dlq');
    EXECUTE format('CREATE VIEW inbox.%I AS SELECT m.* FROM %s m WHERE %s ORDER BY %s',
        p_inbox || '_dlq', v_table, v_dead, v_arrival);

    EXECUTE format('DROP VIEW IF EXISTS inbox.%I', p_inbox || '_stats');
    EXECUTE format($v$CREATE VIEW inbox.%I AS
        SELECT m.%I AS event_type,
               count(*) FILTER (WHERE %s) AS pending,
               count(*) FILTER (WHERE m.%I IS NOT NULL) AS processed,
               count(*) FILTER (WHERE %s) AS dead,
               count(*) AS total
        FROM %s m GROUP BY m.%I$v$,
        p_inbox || '_stats', c.event_type_column, v_pending, c.processed_at_column, v_dead,
        v_table, c.event_type_column);

    EXECUTE format('DROP VIEW IF EXISTS inbox.%I', 'next_' || p_inbox);
    IF o.inbox_name IS NOT NULL THEN
        -- The next unprocessed message of every aggregate, dead or backing off included:
        -- such a head blocks its aggregate (see docs/consuming.md).
        EXECUTE format('CREATE VIEW inbox.%I AS SELECT DISTINCT ON (m.%I) m.* FROM %s m WHERE m.%I IS NULL AND m.%I IS NOT NULL ORDER BY m.%I, m.%I, %s',
            'next_' || p_inbox, o.aggregate_column, v_table, c.processed_at_column,
            o.aggregate_column, o.aggregate_column, o.sequence_column, v_arrival);
        -- A message may be claimed only when no earlier message of its aggregate is unprocessed.
        -- Rows the claiming transaction holds still look unprocessed to every other worker,
        -- so two workers never hold messages of one aggregate at once.
        v_head_guard := format(E'\n                          AND (c.%1$I IS NULL OR NOT %2$s)',
            o.aggregate_column,
            inbox.earlier_unprocessed_sql(v_table, o.aggregate_column, o.sequence_column,
                format('c.%I', o.aggregate_column), format('c.%I', o.sequence_column), 'c.seq'));
    END IF;

    IF c.managed AND o.inbox_name IS NULL THEN
        -- Claim = select the next batch with SKIP LOCKED and mark it processed in one statement.
        -- The caller's transaction is the unit of work: commit keeps the mark, rollback (or a
        -- crash) returns the messages to the queue. Failures are reset with mark_failed before
        -- commit. p_buckets restricts the claim to partition buckets (NULL = all), tested as a bit mask.
        -- The locked rows are updated by ctid (a TID scan): joining on event_id let the planner
        -- pick a hash join over a sequential scan of the whole table (docs/performance-notes.md).
        -- A TID found by FOR UPDATE may be a newer version than the statement's snapshot sees
        -- (updated and committed meanwhile); the UPDATE then skips it and it stays pending.
        -- That guard is written num_nulls(processed_at) = 1, not processed_at IS NULL: the latter
        -- lets the planner use the partial indexes of pending rows for the UPDATE, and with
        -- statistics taken while nothing was pending it scanned one (filtering on ctid) instead
        -- of the TID scan, reading the whole backlog per claim (docs/performance-notes.md §6).
        EXECUTE format(v_claim_head || $f$
            BEGIN
                RETURN QUERY
                WITH claimed AS (
                    UPDATE %2$s m SET processed_at = now()
                    WHERE m.ctid = ANY (ARRAY(
                        SELECT c.ctid
                        FROM %2$s c
                        WHERE c.processed_at IS NULL AND c.retry_count < %3$s
                          AND c.next_attempt_at <= now()
                          AND (v_mask IS NULL OR get_bit(v_mask, c.bucket) = 1)
                        ORDER BY c.priority, c.seq
                        LIMIT p_limit
                        FOR UPDATE OF c SKIP LOCKED))
                      AND num_nulls(m.processed_at) = 1
                    RETURNING m.*
                )
                SELECT * FROM claimed ORDER BY claimed.priority, claimed.seq;
            END;
            $body$
            $f$,
            'claim_' || p_inbox, v_table, c.max_retries);
    ELSIF c.managed THEN
        -- Ordered claim: only the head of each aggregate (its earliest unprocessed message,
        -- dead or backing off included) may be claimed. Two phases keep the cost bounded:
        --  1. walk the claim order (priority, seq), testing each message for an earlier
        --     unprocessed one of its aggregate, but at most a window of 2 * p_limit + 100
        --     messages: with many aggregates the heads come first and this is all it takes;
        --  2. only when at least p_limit of the window's messages are blocked (not heads: a hot
        --     aggregate with a long queue at the front, or followers of dead heads), enumerate the
        --     aggregates' heads directly with a loose index scan over <name>_ordering_idx (one
        --     descent per aggregate with unprocessed messages) and claim the best of those, by the
        --     same claim order.
        -- Phase 2 runs in a later statement that sees phase 1's claims as processed, so it
        -- excludes the aggregates phase 1 took: one message per aggregate per claim, as before.
        -- Both statements check head-ness in their own snapshot, where rows claimed by other
        -- uncommitted transactions are still unprocessed: two workers never hold one aggregate.
        EXECUTE format(v_claim_head || $f$
                v_window integer := CASE WHEN p_limit IS NOT NULL THEN 2 * greatest(p_limit, 0) + 100 END;  -- NULL: no bound
                v_first %2$s[];
                v_rest %2$s[] := '{}';
                v_walked integer;  -- blocked messages (not heads) in the window
            BEGIN
                WITH claimed AS (
                    UPDATE %2$s m SET processed_at = now()
                    WHERE m.ctid = ANY (ARRAY(
                        SELECT c.ctid
                        FROM (SELECT w.ctid AS tid, w.priority, w.seq FROM %2$s w
                              WHERE w.processed_at IS NULL AND w.retry_count < %3$s
                                AND w.next_attempt_at <= now()
                                AND (v_mask IS NULL OR get_bit(v_mask, w.bucket) = 1)
                              ORDER BY w.priority, w.seq
                              LIMIT v_window) win
                        JOIN %2$s c ON c.ctid = win.tid  -- by TID: see num_nulls in the plain claim
                        WHERE num_nulls(c.processed_at) = 1 AND c.retry_count < %3$s
                          AND c.next_attempt_at <= now()%4$s
                        ORDER BY win.priority, win.seq
                        LIMIT p_limit
                        FOR UPDATE OF c SKIP LOCKED))
                      AND num_nulls(m.processed_at) = 1
                    RETURNING m AS r
                )
                SELECT coalesce(array_agg(claimed.r), '{}') INTO v_first FROM claimed;

                IF cardinality(v_first) < p_limit THEN
                    -- Phase 2 only when blocked messages (not heads) crowd the window. A window
                    -- that is merely full of messages other claims hold or just committed (two
                    -- workers claiming side by side) is no reason: the next claim reaches what
                    -- lies behind them, and enumerating every aggregate's head under concurrent
                    -- claims cost seconds (docs/mailroom-performance-notes.md).
                    SELECT count(*) INTO v_walked FROM (
                        SELECT w.%5$I AS agg, w.%6$I AS s, w.seq FROM %2$s w
                        WHERE w.processed_at IS NULL AND w.retry_count < %3$s
                          AND w.next_attempt_at <= now()
                          AND (v_mask IS NULL OR get_bit(v_mask, w.bucket) = 1)
                        ORDER BY w.priority, w.seq
                        LIMIT v_window) win
                    WHERE win.agg IS NOT NULL AND %8$s;
                    IF v_walked >= greatest(p_limit, 1) THEN
                        -- The heads arrive in aggregate order and must be sorted into claim
                        -- order: without a sort the planner would walk the whole claim index
                        -- filtering on ctid, the very walk this phase avoids. (The function's
                        -- SET clause keeps this setting inside the function.)
                        PERFORM set_config('enable_sort', 'on', true);
                        WITH RECURSIVE %7$s, claimed AS (
                            UPDATE %2$s m SET processed_at = now()
                            WHERE m.ctid = ANY (ARRAY(
                                SELECT c.ctid
                                FROM %2$s c
                                WHERE c.ctid = ANY (ARRAY(
                                        SELECT heads.tid FROM heads
                                        UNION ALL
                                        (SELECT u.ctid FROM %2$s u
                                         WHERE u.%5$I IS NULL AND u.processed_at IS NULL AND u.retry_count < %3$s
                                           AND u.next_attempt_at <= now()
                                           AND (v_mask IS NULL OR get_bit(v_mask, u.bucket) = 1)
                                         ORDER BY u.priority, u.seq
                                         LIMIT p_limit)))
                                  AND num_nulls(c.processed_at) = 1 AND c.retry_count < %3$s
                                  AND c.next_attempt_at <= now()
                                  AND (v_mask IS NULL OR get_bit(v_mask, c.bucket) = 1)
                                  AND (c.%5$I IS NULL OR NOT c.%5$I = ANY (ARRAY(
                                        SELECT f.%5$I FROM unnest(v_first) f WHERE f.%5$I IS NOT NULL)))
                                ORDER BY c.priority, c.seq
                                LIMIT p_limit - cardinality(v_first)
                                FOR UPDATE OF c SKIP LOCKED))
                              AND num_nulls(m.processed_at) = 1
                            RETURNING m AS r
                        )
                        SELECT coalesce(array_agg(claimed.r), '{}') INTO v_rest FROM claimed;
                    END IF;
                END IF;

                RETURN QUERY SELECT * FROM unnest(v_first || v_rest) x ORDER BY x.priority, x.seq;
            END;
            $body$
            $f$,
            'claim_' || p_inbox, v_table, c.max_retries,
            v_head_guard,
            o.aggregate_column, o.sequence_column,
            inbox.aggregate_heads_sql(v_table, o.aggregate_column, o.sequence_column),
            inbox.earlier_unprocessed_sql(v_table, o.aggregate_column, o.sequence_column,
                'win.agg', 'win.s', 'win.seq'));
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
AS $$
DECLARE
    v_name text := inbox.check_inbox_name(p_name);
    v_channel text := coalesce(p_channel, 'inbox_' || p_name);
BEGIN
    IF p_max_retries IS NULL OR p_max_retries < 1 THEN
        RAISE EXCEPTION 'max retries must be at least 1, got %', p_max_retries USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_retention_hours IS NULL OR p_retention_hours < 0 OR p_dlq_retention_hours IS NULL OR p_dlq_retention_hours < 0
       OR p_dedup_retention_hours < 0 THEN
        RAISE EXCEPTION 'retention hours must not be negative' USING ERRCODE = 'invalid_parameter_value';
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
    IF v_channel !~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$' THEN
        RAISE EXCEPTION 'invalid channel name %', quote_literal(v_channel) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM inbox.lock_catalog();
    IF EXISTS (SELECT 1 FROM inbox.inbox_config WHERE inbox_name = v_name) THEN
        RAISE EXCEPTION 'inbox % already exists', quote_literal(v_name) USING ERRCODE = 'duplicate_object';
    END IF;
    IF to_regclass(format('inbox.%I', v_name)) IS NOT NULL THEN
        RAISE EXCEPTION 'inbox.% already exists and is not an inbox; use enable_inbox_tracking for an existing table', v_name
            USING ERRCODE = 'duplicate_table';
    END IF;
    PERFORM inbox.check_free_names(v_name);

    -- The priority function starts constant; enable_inbox_priority replaces it. It is declared
    -- IMMUTABLE so it can feed a stored generated column: whoever replaces it recomputes the
    -- stored values of pending rows in the same transaction.
    EXECUTE format('CREATE OR REPLACE FUNCTION inbox.%I(p_event_type text, p_source text, p_aggregate_id text) '
                   'RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
                   'priority_of_' || v_name, 'SELECT 999');

    EXECUTE format($t$
        CREATE TABLE inbox.%1$I (
            event_id        text COLLATE "C" PRIMARY KEY,
            event_type      text,
            source          text,
            aggregate_id    text,
            payload         jsonb,
            received_at     timestamptz NOT NULL DEFAULT now(),
            processed_at    timestamptz,
            error           text,
            retry_count     integer NOT NULL DEFAULT 0,
            trace_id        text,
            -- bookkeeping of the workers
            seq             bigint GENERATED ALWAYS AS IDENTITY,
            next_attempt_at timestamptz NOT NULL DEFAULT '-infinity',
            priority        integer GENERATED ALWAYS AS (inbox.%2$I(event_type, source, aggregate_id)) STORED,
            bucket          smallint GENERATED ALWAYS AS (inbox.inbox_bucket(aggregate_id)) STORED
        ) WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02,
                autovacuum_vacuum_insert_scale_factor = 0.05)$t$,
        v_name, 'priority_of_' || v_name);

    -- Claim order over waiting messages only: the index stays as small as the backlog. It also
    -- serves pending counts and the oldest pending message (inbox_health).
    EXECUTE format('CREATE INDEX %I ON inbox.%I (priority, seq) WHERE processed_at IS NULL AND retry_count < %s',
        v_name || '_claim_idx', v_name, p_max_retries);
    -- No index on received_at for the oldest pending message: inbox_health takes it from the
    -- claim index (earliest seq per priority), which saves one index insert per message.
    -- Dead letters: listing, counting, replay by type and DLQ retention.
    EXECUTE format('CREATE INDEX %I ON inbox.%I (received_at) WHERE processed_at IS NULL AND retry_count >= %s',
        v_name || '_dlq_idx', v_name, p_max_retries);
    -- Retention and throughput read processed rows by time; BRIN costs next to nothing to maintain.
    EXECUTE format('CREATE INDEX %I ON inbox.%I USING brin (processed_at)', v_name || '_processed_brin', v_name);

    -- One notification per INSERT statement, not per row. Consumers count waiting messages,
    -- so PostgreSQL folding identical notifications loses nothing.
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON inbox.%I FOR EACH STATEMENT EXECUTE FUNCTION inbox.notify_inbox_insert(%L, %L)',
        v_name || '_notify', v_name, v_channel, v_name);

    INSERT INTO inbox.inbox_config (inbox_name, table_schema, table_name, managed, max_retries,
        processed_retention, dlq_retention, dedup_retention, backoff_base, backoff_max,
        degraded_age_seconds, critical_age_seconds, degraded_pending, critical_pending, notify_channel)
    VALUES (v_name, 'inbox', v_name, true, p_max_retries,
        make_interval(hours => p_retention_hours), make_interval(hours => p_dlq_retention_hours),
        make_interval(hours => p_dedup_retention_hours), p_backoff_base, p_backoff_max,
        p_degraded_age_seconds, p_critical_age_seconds, p_degraded_pending, p_critical_pending, v_channel);

    PERFORM inbox.rebuild_inbox_objects(v_name);
    PERFORM inbox.log_operator_action('create_inbox', v_name, jsonb_build_object('max_retries', p_max_retries), NULL);
END;
$$;

CREATE OR REPLACE FUNCTION inbox.notify_inbox_insert()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], TG_ARGV[1]);
    RETURN NULL;
END;
$$;

-- Drops the views, functions and catalog rows of an inbox. The message table is kept unless
-- p_cascade; a tracked (bring-your-own) table is never dropped.
CREATE OR REPLACE FUNCTION inbox.drop_inbox(p_name text, p_cascade boolean DEFAULT false, p_if_exists boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql
SET client_min_messages = warning
AS $$
DECLARE
    c inbox.inbox_config;
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
    EXECUTE format('DROP VIEW IF EXISTS inbox.%I, inbox.%I, inbox.%I, inbox.%I',
        p_name || '_pending', p_name || '_dlq', p_name || '_stats', 'next_' || p_name);
    IF c.managed THEN
        EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(integer, integer[])', 'claim_' || p_name);
        IF p_cascade THEN
            EXECUTE format('DROP TABLE IF EXISTS %s', inbox.inbox_table(c));
            EXECUTE format('DROP FUNCTION IF EXISTS inbox.%I(text, text, text)', 'priority_of_' || p_name);
        ELSE
            -- The kept table stays a plain table: no notification trigger pointing at a dropped inbox.
            EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', p_name || '_notify', inbox.inbox_table(c));
        END IF;
    END IF;
    DELETE FROM inbox.inbox_config WHERE inbox_name = p_name;
    PERFORM inbox.log_operator_action('drop_inbox', p_name, jsonb_build_object('cascade', p_cascade), NULL);
END;
$$;
