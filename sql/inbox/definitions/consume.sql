-- Consuming: claim_<name>(limit, buckets) is generated per inbox (definitions/create_inbox.sql);
-- these functions record the outcome of a message for consumers in any language.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Marks one message processed. Call it in the transaction that did the work.
-- Returns false when the message does not exist or was already processed.
CREATE OR REPLACE FUNCTION inbox.mark_processed(p_inbox text, p_event_id text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_count integer;
BEGIN
    EXECUTE format('UPDATE %s SET %I = now() WHERE %I = $1::%s AND %I IS NULL',
        inbox.inbox_table(c), c.processed_at_column, c.id_column, inbox.id_type(c), c.processed_at_column)
        USING p_event_id;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count > 0;
END;
$$;

-- The error text kept on a failed message: at most 4,000 characters, so a handler that fails with
-- a huge message (a whole payload, a stack trace) cannot bloat every row it touches.
CREATE OR REPLACE FUNCTION inbox.capped_error(p_error text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT left(p_error, 4000) $$;

-- The failure history of a message after one more failed attempt (number p_attempt, at p_at): the
-- last five attempts, oldest first, each {"attempt": n, "at": time, "error": text cut to 500
-- characters}. Five, and 500, so that a message failing forever keeps a row of bounded size; the
-- last error in full stays in the error column. Only the failure path calls it.
CREATE OR REPLACE FUNCTION inbox.failure_history(p_history jsonb, p_attempt integer, p_at timestamptz, p_error text)
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN jsonb_array_length(x.h) < 5 THEN x.h ELSE jsonb_path_query_array(x.h, '$[last - 3 to last]') END
           || jsonb_build_array(jsonb_build_object('attempt', p_attempt, 'at', p_at, 'error', left(p_error, 500)))
    FROM (SELECT CASE WHEN jsonb_typeof(p_history) = 'array' THEN p_history ELSE '[]'::jsonb END AS h) x
$$;

-- The delay before the next attempt after a message's n-th failure (n >= 1):
-- exponential (base * 2^(n-1)) capped at max, with "equal jitter": a uniformly random
-- point in the upper half of that delay, so retries of a burst spread out.
CREATE OR REPLACE FUNCTION inbox.retry_delay(p_base interval, p_max interval, p_failures integer)
RETURNS interval
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d * (0.5 + random() * 0.5)
    FROM (SELECT least(p_max, p_base * power(2, least(greatest(p_failures, 1) - 1, 30))) AS d) AS capped
$$;

-- Records a failed attempt: retry_count + 1, the error text, and the next attempt after a
-- backoff (p_retry_delay, or the inbox's exponential backoff with jitter), and the failure
-- history: failing_since (kept from the first failure), last_failed_at, the attempt appended to
-- attempts (inbox.failure_history), died_at when this failure made it dead; the times are the
-- statement's. Once retry_count reaches max_retries the message is a dead letter (visible in <name>_dlq) and is not claimed
-- again until replayed. It applies to a pending message and to one claimed by this transaction
-- (claim_<name> sets processed_at = now(), the transaction's start time); a message processed
-- by another, committed transaction is left alone. Returns 'retry', 'dead', or NULL when
-- nothing was changed. A tracked table keeps what it has no column for in the inbox's side table
-- (inbox.tracked_record_failure).
CREATE OR REPLACE FUNCTION inbox.mark_failed(p_inbox text, p_event_id text, p_error text,
                                             p_retry_delay interval DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_retries integer;
BEGIN
    IF NOT c.managed THEN
        RETURN inbox.tracked_record_failure(c, p_event_id, p_error, p_retry_delay, false, now());
    END IF;
    EXECUTE format($u$UPDATE %s SET processed_at = NULL, retry_count = retry_count + 1, error = inbox.capped_error($2),
            next_attempt_at = now() + coalesce($3, inbox.retry_delay($4, $5, retry_count + 1)),
            failing_since = coalesce(failing_since, statement_timestamp()), last_failed_at = statement_timestamp(),
            died_at = CASE WHEN retry_count + 1 >= $6 THEN statement_timestamp() END,
            attempts = inbox.failure_history(attempts, retry_count + 1, statement_timestamp(), $2)
        WHERE event_id = $1 AND retry_count < $6
          AND (processed_at IS NULL OR processed_at = now())
        RETURNING retry_count$u$, inbox.inbox_table(c))
        INTO v_retries
        USING p_event_id, p_error, p_retry_delay, c.backoff_base, c.backoff_max, c.max_retries;
    IF v_retries IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN CASE WHEN v_retries >= c.max_retries THEN 'dead' ELSE 'retry' END;
END;
$$;

-- Called by a replay after its UPDATE of the inbox's table (inbox.advance_claim_floors).
CREATE OR REPLACE FUNCTION inbox.reset_claim_floors()
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT nextval('inbox.claim_floor_resets');
$$;

-- Called when dead letters of an inbox go (discarded, deleted by retention) or its ordering does:
-- on an inbox ordered by seq, the claim floors pass the messages a dead letter holds back
-- (inbox.advance_floors), which may now be claimed.
CREATE OR REPLACE FUNCTION inbox.reset_ordered_claim_floors(c inbox.inbox_config)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF c.managed AND EXISTS (SELECT 1 FROM inbox.inbox_ordering_config o WHERE o.inbox_name = c.inbox_name) THEN
        PERFORM inbox.reset_claim_floors();
    END IF;
END;
$$;

-- Claim floors ----------------------------------------------------------------------------------
--
-- A claimed message's old row version, and its entry in <name>_claim_idx, stay until vacuum removes
-- them, and vacuum removes nothing that died after the oldest snapshot or transaction id still
-- held anywhere in the database (the xmin horizon). A claim that walked the index from its first
-- entry stepped over every message claimed since the horizon was last free: with a report held
-- open for six minutes at 1,000 messages a second, 360,000 of them and a claim 225 times slower.
-- So a claim starts each priority level of the claim order at that level's floor: a seq below
-- which no message of the level waits. The floors are kept per session (a claim runs its walks in
-- its own session) in the setting pginbox_floor.<inbox> (pginbox_bucket_floor.<inbox> for claims with
-- a bucket mask: inbox.claim_floor_key), move at most every 200 ms (the setting
-- inbox.claim_floor_move_ms; a move costs about half a millisecond of the server's time, most of
-- it reading pg_locks), and are hints only: a floor too high
-- would delay a message until the next sweep, never lose it or hand it out twice, because the
-- claim locks and marks rows exactly as before (docs/performance.md, "Claim floors").
--
-- A floor moves up only past messages no transaction can still make waiting below it:
--  * a message whose INSERT has not committed yet: its seq was taken by a transaction that held
--    RowExclusiveLock on the table from before it took the seq until it ends. A candidate floor
--    L (the table's seq sequence's last value) is recorded with the virtual transaction ids that
--    hold that lock, read after L; once none of them runs any more, every seq up to L belongs to a
--    committed or rolled-back transaction, and a later snapshot sees all of them. The floor then
--    moves to the first waiting message at or above it, at most L + 1;
--  * a message claimed by a transaction still running, or failed and backing off: it waits in
--    every other snapshot, so no floor passes it;
--  * a dead letter replayed: replay gives it a new seq in an inbox without ordering
--    (replay_inbox_messages), so it is new; in an ordered inbox, whose seq ties an aggregate's
--    order, replay moves the counter inbox.claim_floor_resets after its UPDATE, and a session
--    that sees the counter move starts every level from the start again (the replay's lock keeps
--    the floors there until it ends).
--  * a message of an inbox ordered by seq that an earlier dead letter of its aggregate holds back
--    (claim floors only, p_pass_blocked; the operator functions count it as waiting): no claim
--    takes it before the dead letter is replayed, discarded or deleted by retention, or the
--    ordering is disabled, and each of those moves inbox.claim_floor_resets too.
-- What no rule covers (an owner's UPDATE of processed_at or priority, a priority that is not in
-- the inbox's map, dead letters waiting again because max_retries was raised, a writer that
-- PREPAREs its transaction between the two looks at the locks,
-- which moves its locks to another virtual transaction id) is found by the sweep: every 30 s (the setting inbox.claim_floor_sweep_seconds)
-- a session looks for waiting messages below its floors from the start of each level and lowers
-- the floors to them.
-- Only a READ COMMITTED claim moves floors (a REPEATABLE READ snapshot may predate a commit the
-- lock check saw end), and only before its transaction wrote to the table: a message it claimed
-- and then failed or released waits again once it commits, below a floor that passed it.
--
-- The state: check_after_ms;scope;sweep_after_ms;levels;floors;candidate;candidate_holders;resets;paused;order_floor, where
-- scope is the claim's bucket mask and p_levels (the floors hold for those buckets, and a new
-- priority map starts afresh), levels and floors are arrays of the same length
-- (a NULL floor: from the start of the level), and resets is the value of
-- inbox.claim_floor_resets the floors were computed after, and paused is 'paused' while the inbox
-- is (inbox.pause_inbox), read at every move whatever the isolation level, and order_floor a seq
-- below which no message of any level and any bucket waits, but dead letters and on an inbox
-- ordered by seq the messages they hold back, whatever p_pass_blocked ('' until the floors
-- have moved; the ordered head test's bound, inbox.order_floor_sql): the lowest floor without a
-- bucket mask, walked level by level without the mask otherwise. p_levels are the inbox's priority levels (its map's
-- values and default); the sweep adds any other level it finds. The table's seq sequence must not
-- be cached (CACHE 1, as create_inbox makes it). Returns the new state.
-- A tracked table with an arrival column (enable_inbox_tracking) has floors on that column, one
-- level (p_levels {0}) whatever its priorities: the same rules hold, as its INSERTs take the
-- column's value from its sequence (CACHE 1, checked when tracking starts) under their lock on
-- the table or a partition of it, and its replays move inbox.claim_floor_resets under that lock
-- (inbox.tracked_replay). A value the application sets itself below the floors waits for the sweep.
-- The state is kept in the setting p_key: inbox.claim_floor_key for claims
-- (inbox.advance_claim_floors); the operator functions keep floors of their own
-- (inbox.operator_levels_sql), so a session that claims and reads health keeps its claim floors.
CREATE OR REPLACE FUNCTION inbox.advance_floors(p_inbox text, p_mask varbit, p_levels integer[], p_key text,
                                                p_pass_blocked boolean DEFAULT false, p_seq_aggregate text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_table regclass := inbox.inbox_table(c)::regclass;
    -- The table and its partitions (a tracked table may be partitioned): an INSERT locks the one
    -- it names, and the partitions its rows go to.
    v_tables oid[] := CASE WHEN (SELECT t.relkind FROM pg_class t WHERE t.oid = v_table) = 'p'
                           THEN ARRAY(SELECT t.relid::oid FROM pg_partition_tree(v_table) t)
                           ELSE ARRAY[v_table::oid] END;
    v_s text[] := string_to_array(current_setting(p_key, true), ';');
    v_now bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    -- The same text as the claim's (generated_claim_floors).
    v_mask text := coalesce(p_mask::text, '') || '@' || p_levels::text;
    -- How often a session sweeps (the setting inbox.claim_floor_sweep_seconds, 1..3600; 30 s).
    v_sweep_ms bigint := 1000 * least(greatest(
        coalesce(nullif(current_setting('inbox.claim_floor_sweep_seconds', true), '')::integer, 30), 1), 3600);
    -- How often the floors move (the setting inbox.claim_floor_move_ms, 1..60000; 200 ms).
    v_move_ms bigint := least(greatest(
        coalesce(nullif(current_setting('inbox.claim_floor_move_ms', true), '')::integer, 200), 1), 60000);
    v_levels integer[];
    v_from bigint[];
    v_sweep_after bigint;
    v_candidate bigint;
    v_holders text[];
    v_first bigint;
    v_found integer[];
    v_i integer;
    v_order bigint;        -- the order floor (state element 10)
    v_found_order bigint;
    v_order_from bigint;
    v_resets bigint := coalesce(pg_sequence_last_value('inbox.claim_floor_resets'::regclass), 0);
    v jsonb := inbox.vocabulary(c, 'c', p_settings => false);
    -- The first waiting message (claimable or backing off) of a level at or above a seq, of those
    -- {{passing}} does not pass.
    v_first_template text := inbox.sql_template(
        'SELECT {{floor_seq}} FROM {{table}} c WHERE {{pending}}
           AND ($1 IS NULL OR get_bit($1, {{bucket}}) = 1) AND {{floor_level}} = $2 AND {{floor_seq}} >= $3{{passing}}
         ORDER BY {{floor_order}} LIMIT 1', v || '{"passing": "{{passing}}"}');
    -- On an inbox ordered by seq (p_seq_aggregate: its aggregate column, from the caller, so that
    -- a claim reads no catalog here): the messages a dead letter of their aggregate holds back (the
    -- aggregate's earlier dead letter, through <name>_ordering_dead_idx, looked for only when the
    -- inbox has any). None of them can be claimed before the dead letter is replayed or goes, and
    -- each of those resets the floors (inbox.reset_claim_floors); a floor that stopped at them
    -- would stop there for as long as the dead letter stays, and every claim would walk the
    -- messages claimed since, as it did from the front of the index.
    v_blocked text := CASE WHEN p_seq_aggregate IS NOT NULL THEN inbox.sql_template(' AND NOT (c.{{aggregate}} IS NOT NULL
           AND (SELECT EXISTS (SELECT 1 FROM {{table}} d WHERE {{dead}}))
           AND EXISTS (SELECT 1 FROM {{table}} d WHERE d.{{aggregate}} = c.{{aggregate}} AND {{dead}} AND d.seq < c.seq))',
        v || jsonb_build_object('aggregate', quote_ident(p_seq_aggregate),
                                'dead', inbox.vocabulary(c, 'd', p_settings => false) ->> 'dead')) END;
    -- The level floors' search: past blocked messages for claims (p_pass_blocked); the operator
    -- functions count them as waiting. The order floor's: past them whenever the inbox has them.
    v_first_sql text := replace(v_first_template, '{{passing}}', CASE WHEN p_pass_blocked THEN coalesce(v_blocked, '') ELSE '' END);
    v_order_sql text := replace(v_first_template, '{{passing}}', coalesce(v_blocked, ''));
BEGIN
    IF v_s IS NULL OR v_s[2] IS DISTINCT FROM v_mask THEN
        -- A new session (or other buckets, or a new priority map): from the start of every level
        -- (the first sweep, 30 s on, finds levels not in the map).
        v_levels := p_levels;
        v_from := array_fill(NULL::bigint, ARRAY[cardinality(p_levels)]);
        v_sweep_after := v_now + v_sweep_ms;
    ELSIF v_s[8] IS DISTINCT FROM v_resets::text THEN
        -- Dead letters were replayed below the floors: every known level from its start.
        v_levels := v_s[4]::integer[];
        v_from := array_fill(NULL::bigint, ARRAY[cardinality(v_levels)]);
        v_sweep_after := v_s[3]::bigint;
    ELSE
        v_levels := v_s[4]::integer[];
        v_from := v_s[5]::bigint[];
        v_sweep_after := v_s[3]::bigint;
        v_candidate := nullif(v_s[6], '')::bigint;
        v_holders := nullif(v_s[7], '')::text[];
        v_order := nullif(v_s[10], '')::bigint;
    END IF;

    IF current_setting('transaction_isolation') = 'read committed'
       AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation'
                       AND l.relation = ANY (v_tables) AND l.mode = 'RowExclusiveLock') THEN
        IF v_now >= v_sweep_after THEN
            -- Every level with a waiting message (a loose index scan), and the inbox's own.
            EXECUTE inbox.sql_template($q$WITH RECURSIVE lv AS (
                    (SELECT {{floor_level}} AS priority FROM {{table}} c WHERE {{pending}}
                     ORDER BY {{floor_order}} LIMIT 1)
                    UNION ALL
                    SELECT (SELECT {{floor_level}} FROM {{table}} c WHERE {{pending}}
                              AND {{floor_level}} > lv.priority ORDER BY {{floor_order}} LIMIT 1)
                    FROM lv WHERE lv.priority IS NOT NULL)
                SELECT array_agg(lv.priority) FROM lv WHERE lv.priority IS NOT NULL$q$, v)
                INTO v_found;
            FOREACH v_i IN ARRAY coalesce(v_found, '{}') || p_levels LOOP
                IF NOT v_i = ANY (v_levels) THEN
                    v_levels := v_levels || v_i;
                    v_from := v_from || NULL::bigint;
                END IF;
            END LOOP;
            -- Sorted by level, the claim order.
            SELECT array_agg(l.level ORDER BY l.level), array_agg(l.floor ORDER BY l.level)
                INTO v_levels, v_from
                FROM unnest(v_levels, v_from) AS l(level, floor);
            FOR v_i IN 1 .. cardinality(v_levels) LOOP
                IF v_from[v_i] IS NOT NULL THEN
                    EXECUTE v_first_sql INTO v_first USING p_mask, v_levels[v_i], '-9223372036854775808'::bigint;
                    v_from[v_i] := least(v_from[v_i], v_first);
                END IF;
            END LOOP;
            -- The order floor, unless it is the lowest level floor: from the start at the next move.
            v_order := CASE WHEN p_mask IS NULL AND v_order_sql = v_first_sql THEN v_order END;
            v_sweep_after := v_now + v_sweep_ms;
        END IF;

        IF v_candidate IS NULL THEN
            -- A candidate: the last seq taken, then who may still be taking seqs up to it (a
            -- transaction takes the lock before its first seq and holds it to its end).
            v_candidate := coalesce(pg_sequence_last_value(inbox.arrival_sequence(c)), 0);
            v_holders := ARRAY(SELECT l.virtualtransaction FROM pg_locks l
                               WHERE l.locktype = 'relation' AND l.relation = ANY (v_tables)
                                 AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
                                 AND l.mode = 'RowExclusiveLock' AND l.pid IS DISTINCT FROM pg_backend_pid());
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.virtualtransaction = ANY (v_holders)) THEN
            -- Every seq up to the candidate is settled, and the snapshots of the statements below,
            -- taken after this one, see all of them.
            FOR v_i IN 1 .. cardinality(v_levels) LOOP
                EXECUTE v_first_sql INTO v_first
                    USING p_mask, v_levels[v_i], coalesce(v_from[v_i], '-9223372036854775808'::bigint);
                v_from[v_i] := least(coalesce(v_first, v_candidate + 1), v_candidate + 1);
            END LOOP;
            -- The order floor: the lowest floor of every bucket (an aggregate's messages may lie in
            -- buckets outside the mask: an owner's UPDATE of bucket), walked from where it was.
            IF p_mask IS NULL AND v_order_sql = v_first_sql THEN
                v_order := (SELECT min(f.f) FROM unnest(v_from) f(f));
            ELSE
                v_order_from := v_candidate + 1;
                FOR v_i IN 1 .. cardinality(v_levels) LOOP
                    EXECUTE v_order_sql INTO v_found_order
                        USING NULL::varbit, v_levels[v_i], coalesce(v_order, '-9223372036854775808'::bigint);
                    v_order_from := least(v_order_from, v_found_order);
                END LOOP;
                v_order := v_order_from;
            END IF;
            v_candidate := NULL;
            v_holders := NULL;
        END IF;
    END IF;

    v_s := ARRAY[(v_now + v_move_ms)::text, v_mask, v_sweep_after::text, v_levels::text, v_from::text,
                 coalesce(v_candidate::text, ''), coalesce(v_holders::text, ''), v_resets::text,
                 CASE WHEN c.paused_at IS NOT NULL THEN 'paused' ELSE '' END, coalesce(v_order::text, '')];
    PERFORM set_config(p_key, array_to_string(v_s, ';'), false);
    RETURN array_to_string(v_s, ';');
END;
$$;

-- The sequence that fills the column the claim floors bound (floor_seq in inbox.vocabulary): a
-- managed inbox's seq, a tracked table's arrival column; NULL for a tracked table without one.
CREATE OR REPLACE FUNCTION inbox.arrival_sequence(c inbox.inbox_config)
RETURNS regclass
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_get_serial_sequence(inbox.inbox_table(c), CASE WHEN c.managed THEN 'seq' ELSE c.arrival_column END)::regclass $$;

-- The setting that keeps a session's claim floors: one for claims of every bucket, one for claims
-- with a bucket mask. A worker spread over the buckets claims its own every time but every eighth,
-- and after one that found nothing there, from the whole inbox: with one setting each switch
-- started the floors afresh, from the front of every level, and the order floor with them (Java
-- workers on an ordered inbox slowed down through a held horizon while SQL consumers did not).
CREATE OR REPLACE FUNCTION inbox.claim_floor_key(p_inbox text, p_mask varbit)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT CASE WHEN p_mask IS NULL THEN 'pginbox_floor.' ELSE 'pginbox_bucket_floor.' END || p_inbox $$;

-- p_seq_aggregate: the aggregate column of an inbox ordered by seq (inbox.seq_ordering_aggregate),
-- else NULL.
CREATE OR REPLACE FUNCTION inbox.advance_claim_floors(p_inbox text, p_mask varbit, p_levels integer[],
                                                      p_seq_aggregate text DEFAULT NULL)
RETURNS text
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$ SELECT inbox.advance_floors(p_inbox, p_mask, p_levels, inbox.claim_floor_key(p_inbox, p_mask), true, p_seq_aggregate) $$;

-- The aggregate column of an inbox ordered by seq, else NULL (advance_floors' p_seq_aggregate).
CREATE OR REPLACE FUNCTION inbox.seq_ordering_aggregate(p_inbox text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT o.aggregate_column FROM inbox.inbox_ordering_config o WHERE o.inbox_name = p_inbox AND o.sequence_column = 'seq' $$;

-- A session's claim floors for p_mask and p_levels: the state of inbox.advance_claim_floors, moved
-- first when due. Callers read levels from element 4 and floors from element 5. The generated
-- claims test the same three conditions inline (generated_claim_floors), to save this call.
CREATE OR REPLACE FUNCTION inbox.claim_floors(p_inbox text, p_mask varbit, p_levels integer[],
                                              p_seq_aggregate text DEFAULT NULL)
RETURNS text[]
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_state text[] := string_to_array(current_setting(inbox.claim_floor_key(p_inbox, p_mask), true), ';');
BEGIN
    IF v_state IS NULL
       OR v_state[1]::bigint <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint
       OR v_state[2] IS DISTINCT FROM coalesce(p_mask::text, '') || '@' || p_levels::text THEN
        v_state := string_to_array(inbox.advance_claim_floors(p_inbox, p_mask, p_levels, p_seq_aggregate), ';');
    END IF;
    RETURN v_state;
END;
$$;

-- The operator functions' floors of a managed inbox, or of a tracked table with an arrival column
-- (the state of inbox.advance_floors for every bucket and p_levels, kept in the setting
-- pginbox_health_floor.<inbox>), moved first when due; NULL for a role without SELECT on the
-- sequence of the inbox's seq or arrival column (see inbox.operator_levels_sql), and for a
-- tracked table without one.
-- Element 10 is the order floor, element 8 the resets it was computed after
-- (inbox.order_floor_sql).
CREATE OR REPLACE FUNCTION inbox.operator_floors(c inbox.inbox_config, p_levels integer[])
RETURNS text[]
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key text := 'pginbox_health_floor.' || c.inbox_name;
    v_state text[];
BEGIN
    IF inbox.arrival_sequence(c) IS NULL OR NOT has_sequence_privilege(inbox.arrival_sequence(c), 'SELECT') THEN
        RETURN NULL;
    END IF;
    v_state := string_to_array(current_setting(v_key, true), ';');
    IF v_state IS NULL
       OR v_state[1]::bigint <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint
       OR v_state[2] IS DISTINCT FROM '@' || p_levels::text THEN
        v_state := string_to_array(inbox.advance_floors(c.inbox_name, NULL, p_levels, v_key, false,
                                                        CASE WHEN c.managed THEN inbox.seq_ordering_aggregate(c.inbox_name) END), ';');
    END IF;
    RETURN v_state;
END;
$$;

-- The condition (AND ...) that starts an operator function's walk of a tracked table with an
-- arrival column (over alias m) at the operator floor of its one level (inbox.operator_floors,
-- with the same rules as a managed inbox's); '' for any other inbox, and for a role that cannot
-- read the column's sequence (it reads from the front, with the same answer).
CREATE OR REPLACE FUNCTION inbox.tracked_operator_floor_sql(c inbox.inbox_config)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_floor bigint;
BEGIN
    IF c.managed OR c.arrival_column IS NULL OR inbox.is_distributed(c) THEN
        RETURN '';
    END IF;
    v_floor := ((inbox.operator_floors(c, '{0}'))[5]::bigint[])[1];
    RETURN CASE WHEN v_floor IS NULL THEN '' ELSE format(' AND m.%I >= %s', c.arrival_column, v_floor) END;
END;
$$;

-- The priority levels of a managed inbox's claim order with, for each, a seq below which none of
-- its messages waits, as a FROM item: prio(priority, floor). The operator functions (health, the
-- oldest waiting message, partition lag) read each level from there instead of the front of
-- <name>_claim_idx, so they do not walk the entries of messages claimed while the xmin horizon is
-- held (docs/performance.md, "Claim floors"). These are claim floors for every bucket, moved by
-- the claim's rules (inbox.advance_floors) and kept per session in the setting
-- pginbox_health_floor.<inbox>, apart from the session's claim floors: a session's first call,
-- and one every inbox.claim_floor_sweep_seconds (the sweep), still reads each level from its start.
-- Like the claim, they see a message made waiting below them by hand (an owner's UPDATE, a
-- priority outside the map) at the next sweep. A role without SELECT on the inbox's seq sequence
-- (granted to readers and operators by inbox.grant_inbox) reads every level with waiting
-- messages from its start, as before. One statement (inbox_health calls it five times) computes
-- it once: the levels and floors (arrays, not SQL) are kept with the statement's start time in
-- pginbox_health_levels.<inbox>.
CREATE OR REPLACE FUNCTION inbox.operator_levels_sql(c inbox.inbox_config)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_memo_key text := 'pginbox_health_levels.' || c.inbox_name;
    -- statement start|levels|floors: typed arrays only, never SQL text (a session may set it).
    v_memo text[] := string_to_array(current_setting(v_memo_key, true), '|');
    v_statement text := statement_timestamp()::text;
    v_levels integer[];
    v_floors bigint[];
    v_state text[];
BEGIN
    IF v_memo[1] = v_statement THEN
        v_levels := v_memo[2]::integer[];
        v_floors := v_memo[3]::bigint[];
    ELSE
        v_levels := inbox.priority_levels(c);
        v_state := inbox.operator_floors(c, v_levels);
        IF v_state IS NOT NULL THEN
            v_levels := v_state[4]::integer[];
            v_floors := array_replace(v_state[5]::bigint[], NULL, '-9223372036854775808'::bigint);
        ELSE
            -- Every level with a waiting message: a loose index scan from the front of each.
            EXECUTE inbox.sql_template($q$WITH RECURSIVE lv AS (
                    (SELECT c.priority FROM {{table}} c WHERE {{pending}} ORDER BY c.priority LIMIT 1)
                    UNION ALL
                    SELECT (SELECT c.priority FROM {{table}} c WHERE {{pending}} AND c.priority > lv.priority
                            ORDER BY c.priority LIMIT 1)
                    FROM lv WHERE lv.priority IS NOT NULL)
                SELECT coalesce(array_agg(lv.priority), '{}') FROM lv WHERE lv.priority IS NOT NULL$q$,
                inbox.vocabulary(c, 'c', p_settings => false))
                INTO v_levels;
            v_floors := array_fill('-9223372036854775808'::bigint, ARRAY[cardinality(v_levels)]);
        END IF;
        PERFORM set_config(v_memo_key, array_to_string(ARRAY[v_statement, v_levels::text, v_floors::text], '|'), false);
    END IF;
    RETURN format('unnest(%L::integer[], %L::bigint[]) AS prio(priority, floor)', v_levels, v_floors);
END;
$$;
