-- Functions of the Java consumer runtime (PostgresInboxWorker), usable from any language:
-- failure recording in one statement, the waiting-message count of the batching rule, and the
-- leases of the automatic partition mode.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Makes a message a dead letter at once, whatever its retry count (a handler's "dead" outcome).
-- Same guard and failure history as mark_failed: a pending message, or one claimed by the calling
-- transaction.
CREATE OR REPLACE FUNCTION inbox.mark_dead(p_inbox text, p_event_id text, p_error text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_count integer;
BEGIN
    IF NOT c.managed THEN
        RETURN inbox.tracked_record_failure(c, p_event_id, p_error, NULL, true, now()) IS NOT NULL;
    END IF;
    EXECUTE format($u$UPDATE %s SET processed_at = NULL, retry_count = greatest(retry_count, $3), error = inbox.capped_error($2),
            failing_since = coalesce(failing_since, statement_timestamp()), last_failed_at = statement_timestamp(),
            died_at = statement_timestamp(),
            attempts = inbox.failure_history(attempts, retry_count + 1, statement_timestamp(), $2)
        WHERE event_id = $1 AND retry_count < $3 AND (processed_at IS NULL OR processed_at = now())$u$,
        inbox.inbox_table(c))
        USING p_event_id, p_error, c.max_retries;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count > 0;
END;
$$;

-- Records the failed attempts of several messages in one statement (one round trip per batch):
-- element i of the arrays describes message p_event_ids[i]. p_delays[i] NULL = the inbox's backoff;
-- p_dead[i] = dead letter at once. The failure history as in mark_failed. Returns each changed message with 'retry' or 'dead'; messages
-- already processed by another committed transaction are left alone and not returned. The backoff
-- counts from this statement, not from the start of the transaction: a batch that ran until its
-- processing timeout is recorded in its claim transaction, and its backoff starts when it failed.
CREATE OR REPLACE FUNCTION inbox.record_failures(p_inbox text, p_event_ids text[], p_errors text[],
                                                 p_delays interval[], p_dead boolean[])
RETURNS TABLE (event_id text, result text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    IF NOT c.managed THEN
        -- One message after the other (each locks its row: tracked_record_failure).
        RETURN QUERY SELECT f.event_id, r.result
            FROM unnest(p_event_ids, p_errors, p_delays, p_dead) AS f(event_id, error, delay, dead)
            CROSS JOIN LATERAL (SELECT inbox.tracked_record_failure(c, f.event_id, f.error, f.delay,
                                    coalesce(f.dead, false), statement_timestamp()) AS result) r
            WHERE r.result IS NOT NULL;
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format($u$
        UPDATE %s m SET processed_at = NULL,
               retry_count = CASE WHEN f.dead THEN $3 ELSE m.retry_count + 1 END,
               error = inbox.capped_error(f.error),
               next_attempt_at = statement_timestamp() + coalesce(f.delay, inbox.retry_delay($4, $5, m.retry_count + 1)),
               failing_since = coalesce(m.failing_since, statement_timestamp()), last_failed_at = statement_timestamp(),
               died_at = CASE WHEN f.dead OR m.retry_count + 1 >= $3 THEN statement_timestamp() END,
               attempts = inbox.failure_history(m.attempts, m.retry_count + 1, statement_timestamp(), f.error)
        FROM unnest($1, $2, $6, $7) AS f(event_id, error, delay, dead)
        WHERE m.event_id = f.event_id AND m.retry_count < $3
          AND (m.processed_at IS NULL OR m.processed_at = now())
        RETURNING m.event_id, CASE WHEN m.retry_count >= $3 THEN 'dead' ELSE 'retry' END$u$,
        inbox.inbox_table(c))
        USING p_event_ids, p_errors, c.max_retries, c.backoff_base, c.backoff_max, p_delays, p_dead;
END;
$$;

-- Gives messages claimed by the calling transaction back to the queue without a failed attempt:
-- when a batch passes its processing timeout, only the message that was running is charged, and
-- its batch-mates go back untouched, in the same transaction (rows still locked). Only rows this
-- transaction claimed change (claim_<name> sets processed_at = now()). Returns how many.
CREATE OR REPLACE FUNCTION inbox.release_claimed(p_inbox text, p_event_ids text[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_count integer;
BEGIN
    EXECUTE format('UPDATE %s SET %I = NULL WHERE %I = ANY ($1::%s[]) AND %I = now()',
        inbox.inbox_table(c), c.processed_at_column, c.id_column, inbox.id_type(c), c.processed_at_column)
        USING p_event_ids;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END;
$$;

-- How many messages are ready to be claimed right now, counted up to p_limit (the count stops
-- there, so it costs at most p_limit index entries): the batching rule counts waiting messages,
-- not notifications. With ordering enabled only aggregate heads count, as only they can be claimed,
-- and the count is bounded like claim_<name>: heads among the first 2 * p_limit + 100 waiting
-- messages in claim order, and only when those are all blocked (a long queue of one aggregate in
-- front) the aggregates' heads from a loose index scan over <name>_ordering_idx.
CREATE OR REPLACE FUNCTION inbox.count_waiting(p_inbox text, p_limit integer, p_buckets integer[] DEFAULT NULL)
RETURNS integer
-- Volatile: without ordering it counts from the session's claim floors, as the claim does, and
-- moving them needs a snapshot per statement (inbox.advance_claim_floors).
LANGUAGE plpgsql
-- As in claim_<name>: walk the claim index, whatever the (always stale) statistics say.
SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    v jsonb := inbox.vocabulary(c);
    v_table text := v ->> 'table';
    v_window integer := CASE WHEN p_limit IS NOT NULL THEN 2 * greatest(p_limit, 0) + 100 END;  -- NULL: no bound
    v_mask varbit := inbox.inbox_bucket_mask(p_buckets);
    v_floors text[];
    v_levels integer[];
    v_from bigint[];
    v_i integer;
    v_heads integer;
    v_walked integer;
    v_count integer;
BEGIN
    IF c.paused_at IS NOT NULL THEN
        RETURN 0;  -- inbox.pause_inbox: claims take nothing
    END IF;
    IF NOT c.managed THEN
        -- What claim_<name> would take: the same conditions, heads only with ordering, from the
        -- claim floor with an arrival column.
        IF c.arrival_column IS NOT NULL THEN
            v_from := (inbox.claim_floors(p_inbox, v_mask, '{0}'))[5]::bigint[];
        END IF;
        EXECUTE inbox.sql_template($q$SELECT count(*)::integer FROM (
                SELECT 1 FROM {{table}} m WHERE {{claimable}} AND ($2 IS NULL OR get_bit($2, {{bucket}}) = 1)
                  {{floor_from}} {{head}} LIMIT $1) s$q$,
            v || jsonb_build_object('head', coalesce(v ->> 'head', ''),
                                    'floor_from', CASE WHEN c.arrival_column IS NULL THEN ''
                                                       ELSE inbox.sql_template('AND {{floor_seq}} >= $3', v) END))
            INTO v_count
            USING p_limit, v_mask, coalesce(v_from[1], '-9223372036854775808'::bigint);
        RETURN v_count;
    END IF;
    -- Claimable now, in the buckets: what the claim walks ({{waiting}} below).
    v := v || jsonb_build_object('waiting', inbox.sql_template('{{claimable}}
              AND ($2 IS NULL OR get_bit($2, m.bucket) = 1)', v));
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    v_floors := inbox.claim_floors(p_inbox, v_mask, inbox.priority_levels(c), inbox.seq_ordering_aggregate(p_inbox));
    v_levels := v_floors[4]::integer[];
    v_from := v_floors[5]::bigint[];
    IF o.inbox_name IS NULL THEN
        -- Level by level from the claim floors, as claim_<name> walks.
        v_count := 0;
        FOR v_i IN 1 .. cardinality(v_levels) LOOP
            EXIT WHEN v_count >= p_limit;
            EXECUTE inbox.sql_template($q$SELECT count(*)::integer FROM (
                    SELECT 1 FROM {{table}} m WHERE {{waiting}} AND m.priority = $3 AND m.seq >= $4 LIMIT $1) s$q$, v)
                INTO v_walked
                USING p_limit - v_count, v_mask, v_levels[v_i], coalesce(v_from[v_i], '-9223372036854775808'::bigint);
            v_count := v_count + v_walked;
        END LOOP;
        RETURN v_count;
    END IF;

    v := v || jsonb_build_object(
        'blocked', inbox.earlier_unprocessed_sql(v_table, o.aggregate_column, o.sequence_column,
                                                 v ->> 'aggregate', v ->> 'sequence', 'm.seq',
                                                 inbox.order_floor_sql('$8', '$9'), inbox.vocabulary(c, 'd') ->> 'dead'),
        'heads', inbox.aggregate_heads_sql(v_table, o.aggregate_column, o.sequence_column,
                                           inbox.order_floor_sql('$3', '$4'), inbox.vocabulary(c, 'd') ->> 'dead'),
        -- By TID: not a predicate that lets the planner scan a partial index instead (see claim_<name>).
        'still_waiting', inbox.sql_template('{{still_claimable}}
              AND ($2 IS NULL OR get_bit($2, m.bucket) = 1)', v));
    EXECUTE inbox.sql_template($q$SELECT (count(*) FILTER (WHERE {{aggregate}} IS NULL OR NOT {{blocked}}))::integer,
                count(*)::integer
            FROM (SELECT m.* FROM {{table}} m WHERE {{waiting}}
                    -- From the claim floors, as the ordered claim's window.
                    AND (m.priority, m.seq) >= ($4, $5) AND m.seq >= coalesce($6[array_position($7, m.priority)], '-9223372036854775808'::bigint)
                  ORDER BY m.priority, m.seq LIMIT $3) m$q$, v)
        INTO v_heads, v_walked
        USING p_limit, v_mask, v_window, coalesce(v_levels[1], '-2147483648'::integer),
              coalesce(v_from[1], '-9223372036854775808'::bigint), v_from, v_levels,
              nullif(v_floors[10], '')::bigint, v_floors[8]::bigint;
    IF p_limit IS NULL OR v_heads >= p_limit OR v_walked < v_window THEN
        RETURN least(v_heads, p_limit);
    END IF;
    EXECUTE inbox.sql_template($q$WITH RECURSIVE {{heads}}
            SELECT count(*)::integer FROM (
                SELECT 1 FROM (
                    SELECT 1 FROM {{table}} m WHERE m.ctid = ANY (ARRAY(SELECT heads.tid FROM heads)) AND {{still_waiting}}
                    UNION ALL
                    SELECT 1 FROM {{table}} m WHERE {{aggregate}} IS NULL AND {{waiting}}) x
                LIMIT $1) s$q$, v)
        INTO v_count
        USING p_limit, v_mask, nullif(v_floors[10], '')::bigint, v_floors[8]::bigint;
    RETURN v_count;
END;
$$;

-- Waits, at most p_timeout_ms, for the transaction that holds the first claimable aggregate head
-- (claim order, within p_buckets) to end, and says whether to claim again now (true: it ended, or
-- the head is free already) or not (false: no head to wait for, or the time ran out). For a worker
-- whose claim on an ordered inbox came back empty because other workers hold the heads: it can
-- claim again the moment a head is released (its next message becomes the head) instead of
-- sleeping until its next poll, and workers that wake together share the heads between them. A
-- head that is free here was held when the claim looked: committed since, or locked for a moment
-- by another claim (SKIP LOCKED skips a row another claim locks and then rejects) or by another
-- worker's test below; claiming again takes it (read as "nothing to wait for", the worker would
-- sleep until its next poll with that head waiting, and so could every worker). Call it in the
-- transaction of the empty claim, which holds nothing then; it locks nothing past its own return
-- but briefly the head it tests (FOR SHARE). False at once on an unordered inbox or a tracked
-- table.
CREATE OR REPLACE FUNCTION inbox.await_held_head(p_inbox text, p_timeout_ms integer, p_buckets integer[] DEFAULT NULL)
RETURNS boolean
LANGUAGE plpgsql
SET enable_bitmapscan = off SET enable_seqscan = off SET jit = off
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    v_table text := inbox.inbox_table(c);
    v jsonb;
    v_head tid;
    v_mask varbit;
    v_floors text[];
    v_lock_timeout text := current_setting('lock_timeout');
BEGIN
    IF p_timeout_ms IS NULL OR p_timeout_ms < 1 THEN
        RAISE EXCEPTION 'timeout must be at least 1 ms, got %', coalesce(p_timeout_ms::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF NOT FOUND OR NOT c.managed THEN
        RETURN false;
    END IF;
    -- The first head among the first 100 waiting messages in claim order: the one a claim would
    -- take first. Heads held by another claim still look unprocessed in this snapshot. From the
    -- session's claim floors, as the claim walks.
    v := inbox.vocabulary(c);
    v_mask := inbox.inbox_bucket_mask(p_buckets);
    v_floors := inbox.claim_floors(p_inbox, v_mask, inbox.priority_levels(c), inbox.seq_ordering_aggregate(p_inbox));
    EXECUTE inbox.sql_template($q$SELECT w.ctid FROM (
                SELECT m.ctid, {{aggregate}} AS agg, {{sequence}} AS s, m.seq FROM {{table}} m
                WHERE {{claimable}}
                  AND ($1 IS NULL OR get_bit($1, m.bucket) = 1)
                  AND (m.priority, m.seq) >= (coalesce($2[1], '-2147483648'::integer), coalesce($3[1], '-9223372036854775808'::bigint))
                  AND m.seq >= coalesce($3[array_position($2, m.priority)], '-9223372036854775808'::bigint)
                ORDER BY m.priority, m.seq LIMIT 100) w
            WHERE w.agg IS NULL OR NOT {{blocked}}
            LIMIT 1$q$, v || jsonb_build_object('blocked',
        inbox.earlier_unprocessed_sql(v_table, o.aggregate_column, o.sequence_column, 'w.agg', 'w.s', 'w.seq',
                                      inbox.order_floor_sql('$4', '$5'), inbox.vocabulary(c, 'd') ->> 'dead')))
        INTO v_head
        USING v_mask, v_floors[4]::integer[], v_floors[5]::bigint[], nullif(v_floors[10], '')::bigint,
              v_floors[8]::bigint;
    IF v_head IS NULL THEN
        RETURN false;
    END IF;
    BEGIN
        EXECUTE format('SELECT 1 FROM %s m WHERE m.ctid = $1 FOR SHARE NOWAIT', v_table) USING v_head;
        RETURN true;  -- nobody holds it now: claimable
    EXCEPTION WHEN lock_not_available THEN
        NULL;
    END;
    PERFORM set_config('lock_timeout', p_timeout_ms || 'ms', true);
    BEGIN
        -- Returns once the holder ends: committed, the row version it waited for is gone; rolled
        -- back, the head is locked here until this transaction ends (the caller rolls back).
        EXECUTE format('SELECT 1 FROM %s m WHERE m.ctid = $1 FOR SHARE', v_table) USING v_head;
    EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
        PERFORM set_config('lock_timeout', v_lock_timeout, true);
        RETURN false;
    END;
    PERFORM set_config('lock_timeout', v_lock_timeout, true);
    RETURN true;
END;
$$;

-- Pending depth and the age of the oldest pending message (gauges; both served by the claim
-- index from the operator floors: inbox.capped_waiting_count without a cap, and the
-- earliest-arrived pending message from oldest_pending_sql).
CREATE OR REPLACE FUNCTION inbox.pending_gauges(p_inbox text, OUT depth bigint, OUT oldest_age_seconds double precision)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v jsonb := inbox.vocabulary(c, p_settings => false);
    v_oldest timestamptz;
BEGIN
    IF NOT inbox.is_distributed(c) THEN
        -- Every waiting message (no cap), each priority level from its floor (a tracked table's
        -- from its one floor with an arrival column), as health counts: not from the front of the
        -- claim index, where a held xmin horizon keeps the entries of every message claimed since.
        SELECT x.n INTO depth FROM inbox.capped_waiting_count(c, NULL, 9223372036854775807) x;
    ELSE
        -- One count, which Citus runs on every shard.
        EXECUTE inbox.sql_template('SELECT count(*) FROM {{table}} m WHERE {{pending}}', v) INTO depth;
    END IF;
    IF c.received_at_column IS NOT NULL THEN
        EXECUTE inbox.oldest_pending_sql(c, v ->> 'received_at') INTO v_oldest;
    END IF;
    oldest_age_seconds := coalesce(inbox.seconds_since(v_oldest), 0);
END;
$$;

-- Automatic partitions. Live workers register in inbox_workers with a heartbeat and share the
-- partitions 0..p_partitions-1 through inbox_partition_leases (fair share = ceil(partitions /
-- live workers)). The guard: a claim transaction holds a KEY SHARE lock on the lease row of each
-- partition it claims from (inbox.lease_guard), and a lease changes hands (release or takeover)
-- only under that row's exclusive lock, tried without waiting. So a lease never moves while a
-- transaction of its owner is claiming from it, and a worker whose lease moved sees that before
-- it claims. Row locks, not advisory locks: only roles that may update the lease rows (consumers
-- of the inbox, through the row-level policies of roles.sql) can take them, so no other role
-- can stall the protocol. Transaction-level only: this works through PgBouncer transaction pooling.
-- A lease renewal (UPDATE of lease_expires_at, FOR NO KEY UPDATE) does not conflict with KEY SHARE,
-- so heartbeats never wait for claims.
DROP FUNCTION IF EXISTS inbox.partition_lock_key(text);

-- The channel on which the automatic partition mode's heartbeats tell an inbox's workers that
-- the workers changed or partitions came free. The hyphens keep it apart from every inbox's own
-- channel (inbox_<name> by default); inbox names are at most 40 characters, so it stays within
-- PostgreSQL's 63 for a channel name.
CREATE OR REPLACE FUNCTION inbox.lease_channel(p_inbox text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
RETURN 'inbox-leases-' || p_inbox;

-- One heartbeat of p_worker: refreshes its registration, forgets workers silent for longer than
-- a lease, renews its live leases, gives up partitions above its fair share, takes free or expired
-- ones below it. Returns the partitions it holds afterwards and may claim from (a surplus one it
-- could not give up yet is left out). The database clock decides. When the workers change (this
-- one joins, a silent one is forgotten) or it gives partitions up, it notifies the inbox's lease
-- channel, inbox.lease_channel(p_inbox), at commit: the other workers beat at once instead of at
-- their next heartbeat, so a joining worker gets its share, and the partitions of a worker gone
-- are taken, without waiting out a heartbeat interval.
CREATE OR REPLACE FUNCTION inbox.worker_heartbeat(p_inbox text, p_worker text, p_partitions integer, p_lease interval)
RETURNS integer[]
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_live integer;
    v_share integer;
    v_owned integer;
    v_part integer;
    v_surplus integer[] := '{}';
    v_result integer[];
    v_joined boolean;
    v_forgotten integer;
BEGIN
    PERFORM inbox.inbox_config_of(p_inbox);
    IF p_partitions IS NULL OR p_partitions < 1 OR p_partitions > 1024 THEN
        RAISE EXCEPTION 'partitions must be in 1..1024, got %', p_partitions USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_lease IS NULL OR p_lease <= interval '0' THEN
        RAISE EXCEPTION 'lease must be positive' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE inbox.inbox_workers SET heartbeat_at = now()
    WHERE inbox_name = p_inbox AND worker_id = p_worker;
    v_joined := NOT FOUND;
    IF v_joined THEN
        INSERT INTO inbox.inbox_workers (inbox_name, worker_id)
        VALUES (p_inbox, p_worker)
        ON CONFLICT (inbox_name, worker_id) DO UPDATE SET heartbeat_at = now();
    END IF;
    DELETE FROM inbox.inbox_workers
    WHERE inbox_name = p_inbox AND heartbeat_at < now() - p_lease AND worker_id <> p_worker;
    GET DIAGNOSTICS v_forgotten = ROW_COUNT;
    INSERT INTO inbox.inbox_partition_leases (inbox_name, partition_id)
    SELECT p_inbox, g FROM generate_series(0, p_partitions - 1) AS g
    ON CONFLICT DO NOTHING;

    SELECT count(*) INTO v_live FROM inbox.inbox_workers WHERE inbox_name = p_inbox;
    v_share := ceil(p_partitions::numeric / greatest(v_live, 1));

    UPDATE inbox.inbox_partition_leases SET lease_expires_at = now() + p_lease
    WHERE inbox_name = p_inbox AND owner_id = p_worker AND lease_expires_at > now() AND partition_id < p_partitions;
    GET DIAGNOSTICS v_owned = ROW_COUNT;

    IF v_owned > v_share THEN
        FOR v_part IN
            SELECT partition_id FROM inbox.inbox_partition_leases
            WHERE inbox_name = p_inbox AND owner_id = p_worker AND lease_expires_at > now()
            ORDER BY partition_id DESC LIMIT v_owned - v_share
        LOOP
            -- Busy (one of our claim transactions holds it): it is left out of the result all the
            -- same, so our claims stop locking it, and its lease ends now (an UPDATE of the expiry
            -- does not wait for the claims' KEY SHARE locks). A worker below its share then takes
            -- it at its own next heartbeat once our claim transaction has ended (its FOR UPDATE
            -- SKIP LOCKED passes it over until then), instead of after our next heartbeat as well.
            v_surplus := v_surplus || v_part;
            PERFORM 1 FROM inbox.inbox_partition_leases
            WHERE inbox_name = p_inbox AND partition_id = v_part
            FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE inbox.inbox_partition_leases SET owner_id = NULL, lease_expires_at = '-infinity'
                WHERE inbox_name = p_inbox AND partition_id = v_part AND owner_id = p_worker;
            ELSE
                UPDATE inbox.inbox_partition_leases SET lease_expires_at = now()
                WHERE inbox_name = p_inbox AND partition_id = v_part AND owner_id = p_worker;
            END IF;
        END LOOP;
    ELSIF v_owned < v_share THEN
        FOR v_part IN
            SELECT partition_id FROM inbox.inbox_partition_leases
            WHERE inbox_name = p_inbox AND partition_id < p_partitions
              AND (owner_id IS NULL OR lease_expires_at <= now())
            ORDER BY partition_id
            -- Skips a lease another heartbeat is taking, and one whose former owner is still
            -- inside a claim transaction on it (lease_guard's KEY SHARE lock): not yet.
            FOR UPDATE SKIP LOCKED
        LOOP
            EXIT WHEN v_owned >= v_share;
            UPDATE inbox.inbox_partition_leases SET owner_id = p_worker, lease_expires_at = now() + p_lease
            WHERE inbox_name = p_inbox AND partition_id = v_part;
            v_owned := v_owned + 1;
        END LOOP;
    END IF;

    SELECT coalesce(array_agg(partition_id ORDER BY partition_id), '{}') INTO v_result
    FROM inbox.inbox_partition_leases
    WHERE inbox_name = p_inbox AND owner_id = p_worker AND lease_expires_at > now() AND partition_id < p_partitions
      AND NOT partition_id = ANY (v_surplus);
    IF v_joined OR v_forgotten > 0 OR cardinality(v_surplus) > 0 THEN
        PERFORM pg_notify(inbox.lease_channel(p_inbox), '');
    END IF;
    RETURN v_result;
END;
$$;

-- The guard of a claim transaction in the automatic mode: locks (KEY SHARE) the lease row of each
-- partition the worker believes it holds and still holds; a row that a heartbeat is handing over
-- is waited for and then re-checked in its new version (READ COMMITTED), so a lease moved
-- meanwhile is seen. Call it first in the claim transaction and claim only from the buckets of
-- the returned partitions; the locks last until commit or rollback.
CREATE OR REPLACE FUNCTION inbox.lease_guard(p_inbox text, p_worker text, p_partitions integer[])
RETURNS integer[]
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_result integer[];
BEGIN
    -- Locked in partition order, so guards and heartbeats never deadlock.
    SELECT coalesce(array_agg(l.partition_id ORDER BY l.partition_id), '{}') INTO v_result
    FROM (SELECT partition_id FROM inbox.inbox_partition_leases
          WHERE inbox_name = p_inbox AND owner_id = p_worker AND lease_expires_at > now()
            AND partition_id = ANY (p_partitions)
          ORDER BY partition_id
          FOR KEY SHARE) l;
    RETURN v_result;
END;
$$;

-- The buckets a claim may take, its lease guard included, for one statement with the claim (the
-- worker's claim_guarded.sql passes the result to claim_<name>; as a statement of its own the
-- guard cost every claim transaction a round trip). Without automatic partitions (p_partitions
-- NULL), p_buckets as given. Otherwise lease_guard(p_partitions) first, then p_buckets (the buckets
-- of p_partitions, NULL = all 1,024) when the guard returned every one of p_partitions, as it does
-- unless a lease moved since the worker's last heartbeat; after a move, the buckets of p_buckets
-- whose partition of p_partition_count the guard returned ('{}' for none: claim nothing). That
-- recomputation hashes each bucket for every partition (inbox_bucket_owner, ~30 ms for 1,024
-- buckets of 32 partitions), so it is kept off the path every claim takes.
CREATE OR REPLACE FUNCTION inbox.lease_guard_buckets(p_inbox text, p_worker text,
    p_partitions integer[], p_partition_count integer, p_buckets integer[])
RETURNS integer[]
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_held integer[];
BEGIN
    IF p_partitions IS NULL THEN
        RETURN p_buckets;
    END IF;
    v_held := inbox.lease_guard(p_inbox, p_worker, p_partitions);
    IF p_partitions <@ v_held THEN
        RETURN p_buckets;
    END IF;
    IF cardinality(v_held) = 0 THEN
        RETURN '{}';
    END IF;
    RETURN (SELECT coalesce(array_agg(b ORDER BY b), '{}')
            FROM unnest(coalesce(p_buckets, ARRAY(SELECT generate_series(0, 1023)))) AS b
            WHERE inbox.inbox_bucket_owner(b, p_partition_count) = ANY (v_held));
END;
$$;

-- A worker leaving in an orderly way: gives up its leases (waiting for its own claim transactions
-- to end) and its registration, so the others rebalance at their next heartbeat.
CREATE OR REPLACE FUNCTION inbox.worker_leave(p_inbox text, p_worker text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- The UPDATE waits for the KEY SHARE locks of our own claim transactions on other connections:
    -- FOR UPDATE first, as a lease release changes no key, its plain UPDATE would not wait.
    PERFORM 1 FROM inbox.inbox_partition_leases
    WHERE inbox_name = p_inbox AND owner_id = p_worker
    ORDER BY partition_id
    FOR UPDATE;
    UPDATE inbox.inbox_partition_leases SET owner_id = NULL, lease_expires_at = '-infinity'
    WHERE inbox_name = p_inbox AND owner_id = p_worker;
    DELETE FROM inbox.inbox_workers WHERE inbox_name = p_inbox AND worker_id = p_worker;
    IF FOUND THEN
        PERFORM pg_notify(inbox.lease_channel(p_inbox), '');
    END IF;
END;
$$;

-- One step of the retention sweep of the workers (purge_inbox), or NULL while another sweep of the
-- inbox runs: one elected sweeper per inbox through a row lock on the inbox's catalog row, held to
-- the end of the transaction. Row locks need an UPDATE privilege on the catalog (consumers and
-- operators have one on stripped_until): a role without it cannot block retention.
CREATE OR REPLACE FUNCTION inbox.try_purge_inbox(p_inbox text, p_batch_size integer DEFAULT 1000)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- NO KEY UPDATE: the foreign-key checks of worker registrations (KEY SHARE) do not wait for it.
    PERFORM 1 FROM inbox.inbox_config WHERE inbox_name = p_inbox FOR NO KEY UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        PERFORM inbox.inbox_config_of(p_inbox);  -- an unknown inbox is an error, not "busy"
        RETURN NULL;
    END IF;
    RETURN inbox.purge_inbox(p_inbox, p_batch_size);
END;
$$;
