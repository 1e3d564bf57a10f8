-- Operations: replay, health, status, retention, and message listings for tools.
-- Every function works on managed inboxes and on tracked tables (through the column mapping).

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- The retry count and last error of a message over alias m (inbox.vocabulary). A managed inbox
-- keeps them in its table. A tracked table keeps them in its own columns when it has them (a
-- nullable counter: NULL = no failure yet) and otherwise in the inbox's side table
-- inbox.<name>_retry_state, read by one primary-key probe per message (inbox.retry_state_table).
CREATE OR REPLACE FUNCTION inbox.retries_sql(c inbox.inbox_config)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT inbox.vocabulary(c, p_settings => false) ->> 'retries' $$;

CREATE OR REPLACE FUNCTION inbox.error_sql(c inbox.inbox_config)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT inbox.vocabulary(c, p_settings => false) ->> 'error' $$;

-- The predicates of the message states for an inbox ('pending', 'dead', 'processed'), as SQL over
-- alias m: the names of inbox.vocabulary, which defines them.
CREATE OR REPLACE FUNCTION inbox.state_predicate(c inbox.inbox_config, p_state text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT inbox.vocabulary(c, p_settings => false) ->> p_state $$;

-- The catalog row of an inbox an operator action (replay, discard, purge) acts on, once the caller
-- may: the actions run as the schema's owner (SECURITY DEFINER), so that they alone write the
-- audit log (inbox.log_operator_action), and are open to the roles that may record outcomes in
-- the inbox's table (UPDATE on one of its columns: its consumers and operators, and its owner).
-- The privileges checked are the login role's (session_user): whatever it may do, a session can do
-- after RESET ROLE, so SET ROLE to a lesser role lends no right and takes none away.
CREATE OR REPLACE FUNCTION inbox.acted_on_by_caller(p_inbox text)
RETURNS inbox.inbox_config
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    IF NOT has_any_column_privilege(session_user, inbox.inbox_table(c), 'UPDATE') THEN
        RAISE EXCEPTION 'role % may not act on inbox %: it may not record outcomes in %',
            session_user, p_inbox, inbox.inbox_table(c)
            USING ERRCODE = 'insufficient_privilege',
                  HINT = format('grant it with SELECT inbox.grant_inbox(%L, %L, ''operator'')', p_inbox, session_user);
    END IF;
    RETURN c;
END;
$$;

-- What a replay of a managed inbox without ordering sets besides the retry state: a new seq, so
-- that the replayed message waits again as if it had just arrived, after the claim floors
-- (inbox.advance_claim_floors), which have long passed its old one. An ordered inbox keeps the
-- seq, an aggregate's order where the sequence column ties: its replays reset the floors instead
-- (inbox.reset_claim_floors).
CREATE OR REPLACE FUNCTION inbox.replay_resequence_sql(c inbox.inbox_config)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT inbox.vocabulary(c) ->> 'resequence' $$;

-- Replays the dead letters p_selection selects (SQL over alias m, the dead test included; $1 the
-- event ids, $2 the event type, $3 the error group): retry count 0 and due at once, the last error
-- and the attempts kept, failing_since and died_at cleared (the message waits clean again). Both replays (replay_inbox_messages, replay_dlq_group) come here. A managed inbox's
-- replayed messages get a new seq without ordering (resequence in inbox.vocabulary); with ordering
-- they keep it, and the claim floors, which have passed it, start again from the start of their
-- levels (inbox.reset_claim_floors). A tracked table's retry state is its columns and side table
-- (inbox.tracked_replay). Returns how many.
CREATE OR REPLACE FUNCTION inbox.replay_dead_letters(c inbox.inbox_config, p_selection text, p_event_ids text[],
                                                     p_event_type text, p_error text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v jsonb;
    v_count integer;
BEGIN
    IF NOT c.managed THEN
        RETURN inbox.tracked_replay(c, p_selection, p_event_ids, p_event_type, p_error);
    END IF;
    v := inbox.vocabulary(c) || jsonb_build_object('selection', p_selection);
    EXECUTE inbox.sql_template(
        'UPDATE {{table}} m SET retry_count = 0, next_attempt_at = ''-infinity'', failing_since = NULL, died_at = NULL'
        '{{resequence}} WHERE {{selection}}', v)
        USING p_event_ids, p_event_type, p_error;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    IF v_count > 0 AND v ->> 'resequence' = '' THEN
        PERFORM inbox.reset_claim_floors();
    END IF;
    RETURN v_count;
END;
$$;

-- Replays dead letters: retry_count = 0 and next_attempt_at = -infinity (a tracked table's in
-- its columns or the inbox's side table), so they are claimed again at once; those of a managed
-- inbox without ordering get a new seq and queue behind the messages waiting now. Exactly one selector: p_event_ids (those of them that are dead) or
-- p_event_type (every dead letter of that type). Processed and pending messages are never
-- touched. The last error is KEPT: it shows in <name>_pending why the message was replayed,
-- and the next failure overwrites it. Returns the number of messages replayed.
CREATE OR REPLACE FUNCTION inbox.replay_inbox_messages(
    p_inbox text, p_event_ids text[] DEFAULT NULL, p_event_type text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
    v_selector text;
    v_count integer;
BEGIN
    IF (p_event_ids IS NULL) = (p_event_type IS NULL) THEN
        RAISE EXCEPTION 'replay_inbox_messages needs exactly one of p_event_ids and p_event_type'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_selector := CASE WHEN p_event_ids IS NOT NULL
        THEN format('m.%I = ANY ($1::%s[])', c.id_column, inbox.id_type(c))
        ELSE format('m.%I = $2', c.event_type_column) END;
    v_count := inbox.replay_dead_letters(c, v_selector || ' AND ' || inbox.state_predicate(c, 'dead'),
        p_event_ids, p_event_type);
    PERFORM inbox.log_operator_action('replay', p_inbox,
        jsonb_strip_nulls(jsonb_build_object('event_ids', p_event_ids, 'event_type', p_event_type)), v_count);
    RETURN v_count;
END;
$$;

-- The number of rows matching a predicate, exact below p_cap. At p_cap or more it returns the
-- planner's row estimate instead (never less than p_cap) and exact = false. Counting stops at the
-- cap, so the cost is bounded by it whatever the backlog (an index-only scan of the partial
-- index of a managed inbox: roughly 1 ms per 10,000 rows).
CREATE OR REPLACE FUNCTION inbox.capped_count(p_table text, p_predicate text, p_cap bigint,
                                              OUT n bigint, OUT exact boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %s m WHERE %s LIMIT %s) capped', p_table, p_predicate, p_cap)
        INTO n;
    exact := n < p_cap;
    IF NOT exact THEN
        n := greatest(n, inbox.estimated_count(p_table, p_predicate));
    END IF;
END;
$$;

-- inbox.capped_count of an inbox's waiting messages (those of p_predicate among them, when given).
-- On a managed inbox on one server, each priority level is read from its floor
-- (inbox.operator_levels_sql), not from the front of <name>_claim_idx; a tracked table with an
-- arrival column from its operator floor (inbox.tracked_operator_floor_sql).
CREATE OR REPLACE FUNCTION inbox.capped_waiting_count(c inbox.inbox_config, p_predicate text, p_cap bigint,
                                                      OUT n bigint, OUT exact boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v jsonb := inbox.vocabulary(c);
    v_predicate text := v ->> 'pending' || CASE WHEN p_predicate IS NULL THEN '' ELSE ' AND ' || p_predicate END;
BEGIN
    IF NOT c.managed OR inbox.is_distributed(c) THEN
        SELECT x.n, x.exact INTO n, exact
        FROM inbox.capped_count(v ->> 'table', v_predicate || inbox.tracked_operator_floor_sql(c), p_cap) x;
        RETURN;
    END IF;
    EXECUTE inbox.sql_template($q$SELECT count(*) FROM (SELECT 1 FROM {{levels}} CROSS JOIN LATERAL (
            SELECT 1 FROM {{table}} m WHERE {{predicate}} AND m.priority = prio.priority AND m.seq >= prio.floor
            LIMIT $1) x LIMIT $1) capped$q$,
        v || jsonb_build_object('levels', inbox.operator_levels_sql(c), 'predicate', v_predicate))
        INTO n USING p_cap;
    exact := n < p_cap;
    IF NOT exact THEN
        n := greatest(n, inbox.estimated_count(v ->> 'table', v_predicate));
    END IF;
END;
$$;

-- inbox.capped_count of an inbox's dead letters. A tracked table whose retry counts live in its
-- side table counts the side table's rows out of retries whose message is unprocessed: the few
-- failed messages, where the dead test over the table read every unprocessed row's entry of the
-- owner's index, those a held xmin horizon keeps of claimed messages included. A managed inbox
-- counts through its dead-letter index.
CREATE OR REPLACE FUNCTION inbox.capped_dead_count(c inbox.inbox_config, p_cap bigint, OUT n bigint, OUT exact boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF c.managed OR c.retry_count_column IS NOT NULL THEN
        SELECT x.n, x.exact INTO n, exact
        FROM inbox.capped_count(inbox.inbox_table(c), inbox.vocabulary(c, p_settings => false) ->> 'dead', p_cap) x;
    ELSE
        SELECT x.n, x.exact INTO n, exact
        FROM inbox.capped_count(inbox.retry_state_table(c), inbox.sql_template(
            -- A subquery with LIMIT is not turned into a join: one probe of the message per row
            -- (as a semi-join, the planner may scan the owner's index of unprocessed rows).
            'm.retry_count >= {{max_retries}} AND coalesce((SELECT {{unprocessed}} FROM {{table}} t WHERE {{id}} = m.message_id LIMIT 1), false)',
            inbox.vocabulary(c, 't', p_settings => false)), p_cap) x;
    END IF;
END;
$$;

-- The planner's estimate of the rows matching a predicate (statistics of the last ANALYZE,
-- scaled to the table's current size): costs one plan, reads no rows. VOLATILE only because
-- PostgreSQL runs no EXPLAIN inside a STABLE function; it changes nothing.
CREATE OR REPLACE FUNCTION inbox.estimated_count(p_table text, p_predicate text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_plan jsonb;
BEGIN
    EXECUTE format('EXPLAIN (FORMAT JSON) SELECT 1 FROM %s m WHERE %s', p_table, p_predicate) INTO v_plan;
    RETURN (v_plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric::bigint;
END;
$$;

-- Seconds from p_since to now(), never an error whatever a writer put into a timestamp: a time
-- in the future counts as now (0 seconds) and one before 1970, '-infinity' included, as
-- 1970-01-01, so a tampered value can neither break monitoring nor make a message look young.
-- NULL for NULL.
CREATE OR REPLACE FUNCTION inbox.seconds_since(p_since timestamptz)
RETURNS double precision
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT extract(epoch FROM now() - greatest(least(p_since, now()), timestamptz '1970-01-01 00:00:00+00'))::float8
$$;

-- A query for columns p_columns (over alias m) of the oldest pending message. A managed inbox
-- takes the earliest arrival (lowest seq) from <name>_claim_idx (priority, seq): one index probe
-- per priority level, from its floor (inbox.operator_levels_sql), so no index on received_at has
-- to be maintained on the produce path. (received_at is the inserting transaction's start time:
-- it follows seq except across concurrent producers, by the length of their transactions.) A tracked table
-- orders by its received_at column, from its operator floor with an arrival column. A message whose received_at lies in the future (a writer set
-- it) is passed over, so it cannot hide the messages waiting behind it.
-- With p_stalled, an ordered managed inbox's messages of the aggregates in the query's parameter
-- $1 (text[], inbox.stalled_aggregates) are passed over too, among the first 10,000 waiting
-- messages of each priority: no message among them means no age (a dead head with a long queue
-- behind it shows as blocked messages and a dead letter instead).
CREATE OR REPLACE FUNCTION inbox.oldest_pending_sql(c inbox.inbox_config, p_columns text,
                                                   p_stalled boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- The settings (the ordering's aggregate) only for passing over stalled aggregates.
    v jsonb := inbox.vocabulary(c, p_settings => p_stalled) || jsonb_build_object('columns', p_columns);
BEGIN
    IF NOT c.managed THEN
        RETURN inbox.sql_template(
            'SELECT {{columns}} FROM {{table}} m WHERE {{pending}}{{floor}} AND {{received_at}} <= now() ORDER BY {{received_at}} LIMIT 1',
            v || jsonb_build_object('floor', inbox.tracked_operator_floor_sql(c)));
    END IF;
    IF inbox.is_distributed(c) THEN
        -- Citus runs a recursive CTE only for one aggregate: one search over the shards, each
        -- returning its first message by arrival; the stalled aggregates passed over exactly.
        RETURN inbox.sql_template('SELECT {{columns}} FROM {{table}} m WHERE {{pending}} AND m.received_at <= now()'
            || CASE WHEN p_stalled AND v ? 'aggregate' THEN ' AND NOT coalesce({{aggregate}}::text = ANY ($1), false)' ELSE '' END
            || ' ORDER BY m.seq LIMIT 1', v);
    END IF;
    -- The stalled aggregates' messages are passed over only where there are aggregates.
    RETURN inbox.sql_template($q$SELECT {{columns}} FROM {{levels}} CROSS JOIN LATERAL ({{first}}) m
            ORDER BY m.seq LIMIT 1$q$, v || jsonb_build_object('levels', inbox.operator_levels_sql(c), 'first', inbox.sql_template(
        CASE WHEN NOT p_stalled OR NOT v ? 'aggregate' THEN
            'SELECT m.* FROM {{table}} m WHERE {{pending}} AND m.priority = prio.priority AND m.seq >= prio.floor
                 AND m.received_at <= now() ORDER BY m.seq LIMIT 1'
        ELSE
            'SELECT m.* FROM (SELECT m.* FROM {{table}} m WHERE {{pending}} AND m.priority = prio.priority
                                  AND m.seq >= prio.floor ORDER BY m.seq LIMIT 10000) m
                 WHERE m.received_at <= now() AND NOT coalesce({{aggregate}}::text = ANY ($1), false)
                 ORDER BY m.seq LIMIT 1' END, v)));
END;
$$;

-- Cheap health check; its cost is bounded whatever the backlog and the history:
--  * pending_count: exact up to degraded_pending (an index-only scan of <name>_claim_idx that
--    stops there, each priority level from its floor: inbox.capped_waiting_count); above it,
--    exact up to critical_pending when the planner estimates at most twice critical_pending (or
--    the table was never analyzed), else the planner's estimate.
--    pending_count_exact says which.
--  * dlq_count: exact up to max(degraded_dlq, 10,000), else an estimate (dlq_count_exact).
--  * oldest pending message: a few index probes (oldest_pending_sql).
--  * throughput (processed in the last minute): the BRIN index on processed_at; it reads the
--    last minute's rows.
-- The status is therefore exact, except that an estimate of more than twice critical_pending
-- decides "critical" without counting.
CREATE OR REPLACE FUNCTION inbox.inbox_health(p_inbox text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v jsonb := inbox.vocabulary(c);
    v_table text := v ->> 'table';
    v_pending bigint;
    v_pending_exact boolean;
    v_dead bigint;
    v_dead_exact boolean;
    v_oldest timestamptz;
    v_age bigint := 0;
    v_throughput bigint;
    v_horizon jsonb := inbox.horizon_health();
    v_status text;
    -- An ordered inbox's aggregates whose head is dead or backing off: their messages are blocked.
    v_stalled text[] := inbox.stalled_aggregates(p_inbox);
    v_blocked bigint := 0;
    v_blocked_exact boolean := true;
    v_claimable bigint;  -- pending, but not blocked
BEGIN
    SELECT x.n, x.exact INTO v_pending, v_pending_exact
        FROM inbox.capped_waiting_count(c, NULL, c.degraded_pending + 1) x;
    -- Count on to the critical threshold unless the planner (on a table ANALYZE has seen, so
    -- that the estimate rests on statistics) expects more than twice as many.
    IF NOT v_pending_exact AND c.critical_pending > c.degraded_pending
       AND (v_pending <= 2 * c.critical_pending
            OR (SELECT t.reltuples < 0 FROM pg_class t WHERE t.oid = v_table::regclass)) THEN
        SELECT x.n, x.exact INTO v_pending, v_pending_exact
            FROM inbox.capped_waiting_count(c, NULL, c.critical_pending + 1) x;
    END IF;
    SELECT x.n, x.exact INTO v_dead, v_dead_exact FROM inbox.capped_dead_count(c, greatest(c.degraded_dlq, 10000) + 1) x;
    IF cardinality(v_stalled) > 0 THEN
        SELECT x.n, x.exact INTO v_blocked, v_blocked_exact
            FROM inbox.capped_waiting_count(c, inbox.sql_template('{{aggregate}}::text = ANY ({{stalled}}::text[])',
                v || jsonb_build_object('stalled', format('%L', v_stalled))), greatest(c.critical_pending, 10000) + 1) x;
    END IF;
    v_claimable := greatest(v_pending - v_blocked, 0);
    IF c.received_at_column IS NOT NULL THEN
        EXECUTE inbox.oldest_pending_sql(c, v ->> 'received_at', v_stalled IS NOT NULL)
            INTO v_oldest USING v_stalled;
        v_age := coalesce(floor(inbox.seconds_since(v_oldest))::bigint, 0);
    END IF;
    EXECUTE inbox.sql_template('SELECT count(*) FROM {{table}} m WHERE {{processed_at}} >= now() - interval ''1 minute''', v)
        INTO v_throughput;

    -- Blocked messages wait for their head, not for a worker: neither the age nor the pending
    -- checks count them (their dead heads count as dead letters).
    v_status := CASE
        WHEN v_age >= c.critical_age_seconds OR v_claimable > c.critical_pending
             OR v_horizon ->> 'check' = 'critical' THEN 'critical'
        WHEN v_age >= c.degraded_age_seconds OR v_claimable > c.degraded_pending
             OR v_dead >= c.degraded_dlq OR v_horizon ->> 'check' = 'degraded'
             OR c.paused_at IS NOT NULL THEN 'degraded'
        ELSE 'healthy' END;

    RETURN jsonb_build_object(
        'inbox', c.inbox_name,
        'pending_count', v_pending,
        'pending_count_exact', v_pending_exact,
        'dlq_count', v_dead,
        'dlq_count_exact', v_dead_exact,
        'oldest_pending_age_seconds', v_age,
        -- Ordered inboxes: waiting messages of aggregates whose head is dead or backing off
        -- (inbox.stalled_aggregates), counted up to the larger of critical_pending and 10,000.
        'blocked_count', v_blocked,
        'blocked_count_exact', v_blocked_exact,
        'throughput_per_minute', v_throughput,
        'status', v_status,
        -- The checks that made the status other than healthy, each with its verdict.
        'status_reasons', to_jsonb(array_remove(ARRAY[
            CASE WHEN v_age >= c.critical_age_seconds THEN 'oldest_pending_age: critical'
                 WHEN v_age >= c.degraded_age_seconds THEN 'oldest_pending_age: degraded' END,
            CASE WHEN v_claimable > c.critical_pending THEN 'pending_count: critical'
                 WHEN v_claimable > c.degraded_pending THEN 'pending_count: degraded' END,
            CASE WHEN v_horizon ->> 'check' <> 'ok' THEN 'xmin_horizon: ' || (v_horizon ->> 'check') END,
            CASE WHEN v_dead >= c.degraded_dlq THEN 'dlq_count: degraded' END,
            CASE WHEN c.paused_at IS NOT NULL THEN 'paused: degraded' END], NULL)),
        -- Since when consumption is paused (inbox.pause_inbox); null: it is not.
        'paused_since', c.paused_at,
        'xmin_horizon', v_horizon,
        'checked_at', now()) || inbox.operator_health(p_inbox);
END;
$$;

-- The xmin horizon -------------------------------------------------------------------------------

-- What holds this database's xmin horizon back, oldest first: while anything does, vacuum can
-- remove no row version that died after it, every claimed message's old version and index entries
-- stay, and claims slow down (docs/operations.md, "The xmin horizon"). A holder is
--   transaction           a session of this database in a transaction that holds a snapshot or a
--                         transaction id: a report in REPEATABLE READ, pg_dump, a session idle in
--                         transaction after a write, a long query (since: the transaction's start)
--   standby               a walsender with hot_standby_feedback and no slot: the standby's oldest
--                         query (since: unknown)
--   replication_slot      a slot with an xmin (a physical slot with hot_standby_feedback; an
--                         inactive one holds it until dropped) (since: unknown)
--   prepared_transaction  a two-phase transaction never committed or rolled back (since: prepared)
-- Autovacuum and the calling session are left out. xid_age is how many transactions ago the held
-- xmin was current. No query text is shown.
-- SECURITY DEFINER: pg_stat_activity shows other roles' snapshots only to pg_read_all_stats
-- (pg_monitor), and an inbox's operator must see who holds the horizon without it. The function
-- therefore sees what its owner (the installer) sees, and EXECUTE is granted to the consumer,
-- operator and reader roles only (definitions/roles.sql, grant_schema_privileges). p_limit: 1..100.
CREATE OR REPLACE FUNCTION inbox.xmin_horizon(p_limit integer DEFAULT 5)
RETURNS TABLE (kind text, pid integer, name text, role_name text, application_name text,
               client_addr inet, state text, held_since timestamptz, held_seconds bigint,
               xid_age integer, active boolean)
LANGUAGE plpgsql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_limit IS NULL OR p_limit < 1 OR p_limit > 100 THEN
        RAISE EXCEPTION 'limit must be between 1 and 100, got %', coalesce(p_limit::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
    SELECT h.kind, h.pid, h.name, h.role_name, h.application_name, h.client_addr, h.state, h.held_since,
           floor(inbox.seconds_since(h.held_since))::bigint, h.xid_age, h.active
    FROM (
        SELECT CASE WHEN a.backend_type = 'walsender' THEN 'standby' ELSE 'transaction' END AS kind,
               a.pid, NULL::text AS name, a.usename::text AS role_name,
               nullif(a.application_name, '') AS application_name, a.client_addr, a.state,
               CASE WHEN a.backend_type = 'walsender' THEN NULL ELSE a.xact_start END AS held_since,
               greatest(age(a.backend_xid), age(a.backend_xmin)) AS xid_age, true AS active
        FROM pg_stat_activity a
        WHERE a.pid <> pg_backend_pid()
          AND (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)
          AND a.backend_type NOT IN ('autovacuum worker', 'autovacuum launcher')
          AND (a.datname = current_database() OR a.backend_type = 'walsender')
        UNION ALL
        SELECT 'replication_slot', s.active_pid, s.slot_name::text, NULL, NULL, NULL, NULL, NULL,
               age(s.xmin), s.active
        FROM pg_replication_slots s
        WHERE s.xmin IS NOT NULL AND (s.database IS NULL OR s.database = current_database())
        UNION ALL
        SELECT 'prepared_transaction', NULL, p.gid, p.owner::text, NULL, NULL, NULL, p.prepared,
               age(p.transaction), false
        FROM pg_prepared_xacts p
        WHERE p.database = current_database()
    ) h
    ORDER BY h.xid_age DESC, h.held_since NULLS LAST
    LIMIT p_limit;
END;
$$;
REVOKE ALL ON FUNCTION inbox.xmin_horizon(integer) FROM PUBLIC;

-- The horizon's part of inbox_health: how long the oldest holder has held it (held_seconds;
-- 0 when no holder with a known start does), that holder, and the check's verdict against the
-- database settings inbox.horizon_degraded_seconds (default 60) and inbox.horizon_critical_seconds
-- (default 600), e.g. ALTER DATABASE app SET inbox.horizon_critical_seconds = 1800. An inactive
-- replication slot with an xmin is 'degraded' whatever its age: nothing will move it. A role that
-- may not execute inbox.xmin_horizon gets {"visible": false} and the check passes.
CREATE OR REPLACE FUNCTION inbox.horizon_health()
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_degraded integer := inbox.horizon_threshold('inbox.horizon_degraded_seconds', 60);
    v_critical integer := inbox.horizon_threshold('inbox.horizon_critical_seconds', 600);
    v_top jsonb;
    v_held bigint;
    v_stale_slot boolean;
BEGIN
    IF NOT has_function_privilege('inbox.xmin_horizon(integer)', 'EXECUTE') THEN
        RETURN jsonb_build_object('visible', false, 'check', 'ok', 'held_seconds', 0);
    END IF;
    SELECT to_jsonb(h), coalesce(max(h.held_seconds) OVER (), 0),
           bool_or(h.kind = 'replication_slot' AND NOT h.active) OVER ()
    INTO v_top, v_held, v_stale_slot
    FROM inbox.xmin_horizon(100) h
    ORDER BY h.xid_age DESC
    LIMIT 1;
    v_held := coalesce(v_held, 0);
    RETURN jsonb_build_object(
        'visible', true,
        'held_seconds', v_held,
        'holder', v_top,
        'degraded_seconds', v_degraded,
        'critical_seconds', v_critical,
        'check', CASE WHEN v_held >= v_critical THEN 'critical'
                      WHEN v_held >= v_degraded OR coalesce(v_stale_slot, false) THEN 'degraded'
                      ELSE 'ok' END);
END;
$$;

-- A horizon threshold from its setting (seconds, at least 1), else p_default.
CREATE OR REPLACE FUNCTION inbox.horizon_threshold(p_setting text, p_default integer)
RETURNS integer
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_text text := nullif(current_setting(p_setting, true), '');
BEGIN
    IF v_text IS NULL THEN
        RETURN p_default;
    END IF;
    IF v_text !~ '^\s*[0-9]{1,9}\s*$' OR v_text::integer < 1 THEN
        RAISE EXCEPTION 'setting % must be a whole number of seconds (at least 1), got %', p_setting, v_text
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN v_text::integer;
END;
$$;

-- What an inbox can do, feature by feature: {"<feature>": {"enabled": bool, "reason": text}}, the
-- reason only for a feature that is off. A managed inbox has every feature (but notifications once
-- distributed on Citus, which drops the trigger: inbox.distribute_inbox); a tracked table
-- loses those whose optional column it does not have (enable_inbox_tracking). Retries, errors and
-- backoff always work: what the table has no column for is kept in the inbox's side table.
CREATE OR REPLACE FUNCTION inbox.inbox_features(c inbox.inbox_config)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT jsonb_object_agg(f.feature, CASE WHEN f.enabled THEN jsonb_build_object('enabled', true)
        ELSE jsonb_build_object('enabled', false, 'reason', f.reason) END)
    FROM (VALUES
        ('arrival_order', c.received_at_column IS NOT NULL OR c.arrival_column IS NOT NULL,
         'no received_at column: messages are claimed and listed in id order, not by arrival'),
        ('claim_floors', c.managed OR c.arrival_column IS NOT NULL,
         'no arrival column: claims walk the table''s index from its front, over every message claimed while a long transaction holds the xmin horizon'),
        ('message_age', c.received_at_column IS NOT NULL,
         'no received_at column: no oldest-pending age in health (the age thresholds never trip) and no dead-letter retention'),
        ('aggregate', c.aggregate_column IS NOT NULL,
         'no aggregate_id column: listings show no aggregate and every message falls into the partition bucket of the empty aggregate'),
        ('payload', c.managed OR c.payload_column IS NOT NULL,
         'no payload column: handlers and listings get no payload'),
        ('notifications', (c.managed OR c.notify_trigger) AND NOT inbox.is_distributed(c),
         CASE WHEN inbox.is_distributed(c) THEN 'distributed on Citus: no insert notifications, workers poll'
              ELSE 'tracked without p_notify => true: workers poll' END)) AS f(feature, enabled, reason));
END;
$$;

-- Richer status for operators: configuration, ordering/priority settings, counts, recent
-- throughput, the most frequent errors of failing messages, the retry distribution and the
-- oldest pending message. Reads the backlog (pending and dead rows) and the last hour of
-- processed rows; it never scans the processed history.
CREATE OR REPLACE FUNCTION inbox.inbox_status(p_inbox text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    p inbox.inbox_priority_config;
    v jsonb := inbox.vocabulary(c);
    v_table text := v ->> 'table';
    v_health jsonb := inbox.inbox_health(p_inbox);
    v_rates jsonb;
    v_errors jsonb := '[]';
    v_retries jsonb := '{}';
    v_retrying bigint := 0;
    v_never_due bigint;
    v_oldest jsonb;
    v_vacuum jsonb;
BEGIN
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    SELECT * INTO p FROM inbox.inbox_priority_config WHERE inbox_name = p_inbox;

    -- Pending or dead ({{unprocessed_rows}}), written as the two partial-index predicates so a
    -- managed inbox reads them through <name>_claim_idx and <name>_dlq_idx.
    v := v || jsonb_build_object('unprocessed_rows', inbox.sql_template('(({{pending}}) OR ({{dead}}))', v));
    EXECUTE inbox.sql_template($q$SELECT jsonb_build_object(
            'last_1_minute', count(*) FILTER (WHERE {{processed_at}} >= now() - interval '1 minute'),
            'last_5_minutes', count(*) FILTER (WHERE {{processed_at}} >= now() - interval '5 minutes'),
            'last_60_minutes', count(*))
        FROM {{table}} m WHERE {{processed_at}} >= now() - interval '60 minutes'$q$, v) INTO v_rates;

    -- Failing = not processed and failed at least once (retrying or dead).
    EXECUTE inbox.sql_template($q$SELECT coalesce(jsonb_agg(jsonb_build_object('error', e.error, 'count', e.n)
                                          ORDER BY e.n DESC, e.error), '[]')
        FROM (SELECT f.error, count(*) AS n
              FROM (SELECT {{error}} AS error, {{retries}} AS retries FROM {{table}} m WHERE {{unprocessed_rows}}) f
              WHERE f.error IS NOT NULL AND f.retries > 0
              GROUP BY f.error ORDER BY count(*) DESC, f.error LIMIT 10) e$q$, v) INTO v_errors;
    EXECUTE inbox.sql_template($q$SELECT coalesce(jsonb_object_agg(r.retries, r.n), '{}'),
                             coalesce(sum(r.n) FILTER (WHERE r.retries > 0 AND r.retries < {{max_retries}}), 0)
        FROM (SELECT {{retries}} AS retries, count(*) AS n FROM {{table}} m
              WHERE {{unprocessed_rows}} GROUP BY 1) r$q$, v) INTO v_retries, v_retrying;

    IF c.managed THEN
        -- Waiting messages that can never be claimed: next_attempt_at = 'infinity' (no worker
        -- writes it; replay or set next_attempt_at = '-infinity' to release them).
        EXECUTE inbox.sql_template($q$SELECT count(*) FROM {{table}} m WHERE {{pending}} AND NOT isfinite(m.next_attempt_at)
                          AND m.next_attempt_at > now()$q$, v)
            INTO v_never_due;
    END IF;

    IF c.received_at_column IS NOT NULL THEN
        EXECUTE inbox.oldest_pending_sql(c, inbox.sql_template($q$jsonb_build_object('event_id', {{id}}, 'event_type', {{event_type}},
                    'received_at', {{received_at}},
                    'age_seconds', floor(inbox.seconds_since({{received_at}}::timestamptz))::bigint)$q$, v)) INTO v_oldest;
    END IF;

    SELECT to_jsonb(x) INTO v_vacuum FROM inbox.inbox_vacuum(p_inbox) x;

    RETURN jsonb_build_object(
        'inbox', c.inbox_name,
        'status', v_health -> 'status',
        'table', v_table,
        'managed', c.managed,
        'configuration', jsonb_build_object(
            'max_retries', c.max_retries,
            'processed_retention_seconds', extract(epoch FROM c.processed_retention)::bigint,
            'dlq_retention_seconds', extract(epoch FROM c.dlq_retention)::bigint,
            'dedup_retention_seconds', extract(epoch FROM c.dedup_retention)::bigint,
            'retention_enabled', c.retention_enabled,
            'backoff_base_seconds', extract(epoch FROM c.backoff_base),
            'backoff_max_seconds', extract(epoch FROM c.backoff_max),
            'degraded_age_seconds', c.degraded_age_seconds,
            'critical_age_seconds', c.critical_age_seconds,
            'degraded_pending', c.degraded_pending,
            'critical_pending', c.critical_pending,
            'degraded_dlq', c.degraded_dlq,
            'notify_channel', c.notify_channel,
            'columns', jsonb_build_object(
                'id', c.id_column, 'event_type', c.event_type_column,
                'processed_at', c.processed_at_column, 'received_at', c.received_at_column,
                'aggregate', c.aggregate_column, 'retry_count', c.retry_count_column,
                'error', c.error_column)),
        'features', inbox.inbox_features(c),
        -- Where retry counts, errors and next attempts are kept.
        'retry_state', CASE WHEN c.managed THEN 'table' ELSE inbox.retry_state_table(c) END,
        'ordering', CASE WHEN o.inbox_name IS NULL THEN NULL ELSE jsonb_build_object(
            'aggregate_column', o.aggregate_column, 'sequence_column', o.sequence_column) END,
        'priority', CASE WHEN p.inbox_name IS NULL THEN NULL ELSE jsonb_build_object(
            'column', p.priority_column, 'map', p.priority_map, 'default', p.default_priority) END,
        'counts', jsonb_build_object(
            'pending', v_health -> 'pending_count',
            'pending_exact', v_health -> 'pending_count_exact',
            'retrying', v_retrying,
            'never_due', v_never_due,
            'dead', v_health -> 'dlq_count',
            'dead_exact', v_health -> 'dlq_count_exact'),
        'processed', v_rates,
        'throughput_per_minute', v_health -> 'throughput_per_minute',
        'errors', v_errors,
        'retry_distribution', v_retries,
        'oldest_pending', v_oldest,
        'oldest_pending_age_seconds', v_health -> 'oldest_pending_age_seconds',
        'vacuum', v_vacuum,
        'checked_at', now()) || (v_health - ARRAY['inbox', 'status', 'pending_count', 'pending_count_exact', 'dlq_count',
            'dlq_count_exact', 'oldest_pending_age_seconds', 'throughput_per_minute', 'checked_at']);
END;
$$;

-- One bounded retention step; call it again while the result says "more": true.
--  * processed rows: deleted once older than the processed retention (by processed_at). When the
--    inbox's dedup_retention is longer, rows older than the processed retention first lose their
--    payload and error (the event id keeps deduplicating redeliveries) and are deleted only once
--    older than dedup_retention;
--  * dead letters: deleted once older than dlq_retention (by received_at).
-- At most p_batch_size rows are changed in total, in that order. Rows locked by others are
-- skipped (not on an inbox distributed on Citus, whose rows are picked by key: docs/scale-out.md).
-- An inbox with retention_enabled = false (tracked tables unless asked) is left alone,
-- except for the side table of a tracked inbox, whose rows of processed or deleted messages go
-- (at most p_batch_size of them, apart from the budget above).
CREATE OR REPLACE FUNCTION inbox.purge_inbox(p_inbox text, p_batch_size integer DEFAULT 1000)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
    v jsonb := inbox.vocabulary(c, p_settings => false);
    v_budget integer := p_batch_size;
    v_deleted bigint := 0;
    v_stripped bigint := 0;
    v_dead bigint := 0;
    v_strip boolean := c.managed AND c.dedup_retention IS NOT NULL AND c.dedup_retention > c.processed_retention;
    v_delete_after interval := CASE WHEN v_strip THEN c.dedup_retention ELSE c.processed_retention END;
    v_strip_cutoff timestamptz := now() - c.processed_retention;
    v_last timestamptz;
    v_open_since timestamptz;
BEGIN
    IF inbox.is_distributed(c) THEN
        -- Citus neither locks rows of a query over many shards (FOR UPDATE) nor names a row by
        -- ctid across them (each shard has its own): rows are picked by key, without SKIP LOCKED.
        v := v || jsonb_build_object('pick', '(x.aggregate_id, x.event_id) IN (SELECT m.aggregate_id, m.event_id', 'lock', ')');
    ELSE
        v := v || jsonb_build_object('pick', 'x.ctid = ANY (ARRAY(SELECT m.ctid', 'lock', ' FOR UPDATE SKIP LOCKED))');
    END IF;
    IF p_batch_size IS NULL OR p_batch_size < 1 THEN
        RAISE EXCEPTION 'batch size must be at least 1, got %', p_batch_size USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The side table of a tracked inbox is the inbox's own: its stale rows go whether or not
    -- retention may delete from the table.
    PERFORM inbox.purge_retry_state(c, p_batch_size);
    IF NOT c.retention_enabled THEN
        RETURN jsonb_build_object('inbox', c.inbox_name, 'deleted_processed', 0, 'stripped_processed', 0,
                                  'deleted_dead', 0, 'more', false, 'retention_enabled', false);
    END IF;

    -- Rows are picked (and locked) by a bounded subquery and deleted by ctid: a TID scan, so each
    -- call costs about p_batch_size rows whatever the size of the table.
    EXECUTE inbox.sql_template($q$DELETE FROM {{table}} x WHERE {{pick}} FROM {{table}} m WHERE {{processed_at}} < now() - $1 LIMIT $2{{lock}}$q$, v)
        USING v_delete_after, v_budget;
    GET DIAGNOSTICS v_deleted = ROW_COUNT;
    v_budget := v_budget - v_deleted;

    IF v_strip AND v_budget > 0 THEN
        -- processed_at is the start time of the processing transaction, so one still open may yet
        -- commit rows older than the cutoff: the watermark never passes the start of the oldest
        -- transaction open in this database, as far as pg_stat_activity shows it (the caller's own
        -- role's sessions; all of them with pg_read_all_stats). Read before the rows are, so a
        -- transaction that commits in between has its rows seen.
        SELECT min(a.xact_start) INTO v_open_since FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.pid <> pg_backend_pid();
        -- In processed_at order from where the last call stopped, so stripped rows are not read again.
        EXECUTE inbox.sql_template($q$WITH s AS (
                UPDATE {{table}} x SET payload = NULL, error = NULL, attempts = NULL
                WHERE {{pick}} FROM {{table}} m
                    WHERE m.processed_at >= $1 AND m.processed_at < $2 AND (m.payload IS NOT NULL OR m.error IS NOT NULL)
                    ORDER BY m.processed_at LIMIT $3{{lock}}
                RETURNING x.processed_at)
            SELECT count(*), max(s.processed_at) FROM s$q$, v)
            INTO v_stripped, v_last
            USING c.stripped_until, v_strip_cutoff, v_budget;
        v_budget := v_budget - v_stripped;
        -- A full batch may have stopped inside a run of equal timestamps: resume at the last one.
        UPDATE inbox.inbox_config
           SET stripped_until = least(
                   CASE WHEN v_budget = 0 THEN coalesce(v_last, stripped_until) ELSE v_strip_cutoff END,
                   v_open_since)
         WHERE inbox_name = c.inbox_name;
    END IF;

    IF v_budget > 0 AND c.received_at_column IS NOT NULL THEN
        EXECUTE inbox.sql_template($q$DELETE FROM {{table}} x WHERE {{pick}} FROM {{table}} m WHERE {{dead}} AND {{received_at}} < now() - $1
                ORDER BY {{received_at}} LIMIT $2{{lock}}$q$, v)
            USING c.dlq_retention, v_budget;
        GET DIAGNOSTICS v_dead = ROW_COUNT;
        v_budget := v_budget - v_dead;
        IF v_dead > 0 THEN
            -- The messages they held back may now be claimed, below the claim floors that passed them.
            PERFORM inbox.reset_ordered_claim_floors(c);
        END IF;
    END IF;
    -- Audited when it changed rows, except as the workers' retention sweep (inbox.retention_sweep).
    IF v_deleted + v_stripped + v_dead > 0 AND current_setting('inbox.retention_sweep', true) IS DISTINCT FROM 'on' THEN
        PERFORM inbox.log_operator_action('purge', p_inbox, jsonb_build_object('batch_size', p_batch_size),
            v_deleted + v_stripped + v_dead);
    END IF;

    RETURN jsonb_build_object('inbox', c.inbox_name, 'deleted_processed', v_deleted,
        'stripped_processed', v_stripped, 'deleted_dead', v_dead, 'more', v_budget = 0,
        'retention_enabled', true);
END;
$$;

-- Messages of one state ('pending' in claim order, 'dead' by arrival) in the managed layout,
-- whatever the table: tools and the Java API read listings through this one function. Columns a
-- tracked table does not map are NULL (seq, priority and bucket: 0, 999 and the hash bucket).
CREATE OR REPLACE FUNCTION inbox.inbox_messages(p_inbox text, p_state text DEFAULT 'dead', p_limit integer DEFAULT 100)
RETURNS TABLE (event_id text, event_type text, source text, aggregate_id text, payload jsonb,
               received_at timestamptz, processed_at timestamptz, error text, retry_count integer,
               trace_id text, seq bigint, priority integer, bucket integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_view text;
BEGIN
    IF p_state IS NULL OR p_state NOT IN ('pending', 'dead') THEN
        RAISE EXCEPTION 'state must be pending or dead, got %', coalesce(quote_literal(p_state), 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_limit IS NULL OR p_limit < 0 THEN
        RAISE EXCEPTION 'limit must not be negative, got %', p_limit USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- The views hold the state predicates and the order; read through them.
    v_view := format('inbox.%I', p_inbox || CASE p_state WHEN 'pending' THEN '_pending' ELSE '_dlq' END);
    IF c.managed THEN
        RETURN QUERY EXECUTE format('SELECT v.event_id, v.event_type, v.source, v.aggregate_id, v.payload, '
            'v.received_at, v.processed_at, v.error, v.retry_count, v.trace_id, v.seq, v.priority, v.bucket::integer '
            'FROM %s v LIMIT $1', v_view) USING p_limit;
    ELSE
        RETURN QUERY EXECUTE 'SELECT ' || (inbox.vocabulary(c) ->> 'row') || ' FROM ' || v_view || ' m LIMIT $1'
            USING p_limit;
    END IF;
END;
$$;
