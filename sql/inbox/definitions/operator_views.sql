-- Operator views: what is stuck and why (blocked aggregates, lag per partition), who works on an
-- inbox (workers), failures grouped by error, and the audit trail of operator actions.
-- Every function pins its search_path; object names are schema-qualified all the same. The
-- tables (operator_log, inbox_worker_registry) are made by steps/0001_baseline.sql and the audit
-- log's writer is in catalog_functions.sql, so that roles.sql can grant them.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- The audit trail, newest first: of one inbox (NULL: all), before id p_before_id (NULL: from the
-- newest) for paging, at most p_limit rows (1..1000).
CREATE OR REPLACE FUNCTION inbox.inbox_operator_log(p_inbox text DEFAULT NULL, p_limit integer DEFAULT 100,
                                                    p_before_id bigint DEFAULT NULL)
RETURNS SETOF inbox.operator_log
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM inbox.check_page_limit(p_limit);
    RETURN QUERY
        SELECT l.* FROM inbox.operator_log l
        WHERE (p_inbox IS NULL OR l.inbox_name = p_inbox)
          AND (p_before_id IS NULL OR l.id < p_before_id)
        ORDER BY l.id DESC
        LIMIT p_limit;
END;
$$;

CREATE OR REPLACE FUNCTION inbox.check_page_limit(p_limit integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_limit IS NULL OR p_limit < 1 OR p_limit > 1000 THEN
        RAISE EXCEPTION 'limit must be in 1..1000, got %', p_limit USING ERRCODE = 'invalid_parameter_value';
    END IF;
END;
$$;

-- An error text with what varies between occurrences of one failure replaced: UUIDs and hex ids
-- of 8 or more characters by <id>, other numbers by <n>; cut to 300 characters. Dead letters with
-- the same event type and normalised error form one group (inbox_dlq_groups).
CREATE OR REPLACE FUNCTION inbox.normalize_error(p_error text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT left(regexp_replace(regexp_replace(regexp_replace(coalesce(p_error, ''),
        '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '<id>', 'g'),
        '\m(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]{8,}\M', '<id>', 'g'),
        '[0-9]+', '<n>', 'g'), 300)
$$;

-- Blocked aggregates -----------------------------------------------------------------------------

-- The SQL of the heads of an ordered inbox's aggregates that cannot be claimed now, as rows
-- (agg, tid, dead, backing_off, locker) over the running transactions' ids $1 (xid[]): a head is
-- blocked when it is a dead letter, backing off after a failure, or locked by a running
-- transaction (claimed and not committed yet: the row version we see carries that transaction's
-- id in xmax). NULL when the inbox has no ordering. Managed inboxes walk the heads with a loose
-- index scan over <name>_ordering_idx (one descent per aggregate with unprocessed messages), from
-- the order floor (p_floor, p_resets: SQL of the operator floors' elements 10 and 8,
-- inbox.operator_floors; see inbox.aggregate_heads_sql); a tracked table, which has no such index,
-- reads its unprocessed rows.
CREATE OR REPLACE FUNCTION inbox.blocked_heads_sql(p_inbox text, p_floor text DEFAULT NULL, p_resets text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    v jsonb := inbox.vocabulary(c);
BEGIN
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF c.managed THEN
        RETURN inbox.sql_template($q$WITH RECURSIVE {{heads}}
            SELECT b.* FROM heads CROSS JOIN LATERAL (
                SELECT heads.agg::text AS agg, m.ctid AS tid, {{retries}} >= {{max_retries}} AS dead,
                       {{retries}} < {{max_retries}} AND {{backing_off}} AS backing_off,
                       CASE WHEN m.xmax <> '0'::xid AND m.xmax = ANY ($1) THEN m.xmax END AS locker
                FROM {{table}} m WHERE m.ctid = heads.tid) b
            WHERE b.dead OR b.backing_off OR b.locker IS NOT NULL$q$,
            v || jsonb_build_object('heads', inbox.operator_heads_sql(c, o, p_floor, p_resets)));
    END IF;
    RETURN inbox.sql_template($q$SELECT b.* FROM (
            SELECT DISTINCT ON ({{aggregate}}) {{aggregate}}::text AS agg, m.ctid AS tid, ({{dead}}) AS dead,
                   ({{pending}}) AND {{backing_off}}
                       AS backing_off,
                   CASE WHEN m.xmax <> '0'::xid AND m.xmax = ANY ($1) THEN m.xmax END AS locker
            FROM {{table}} m WHERE {{unprocessed}} AND {{aggregate}} IS NOT NULL
            ORDER BY {{aggregate}}, {{sequence}}, {{tie}}) b
        WHERE b.dead OR b.backing_off OR b.locker IS NOT NULL$q$, v);
END;
$$;

-- The heads of an ordered inbox distributed on Citus, as a subquery Citus runs on every shard
-- (DISTINCT ON and the window by its distribution column): the loose index scan of
-- aggregate_heads_sql is a recursive CTE, which Citus runs only for one aggregate. One row per
-- aggregate with unprocessed messages: agg, the head's event_id, event_type, error, retry_count,
-- next_attempt_at, received_at, died_at, failing_since, dead, backing_off (failed, next attempt
-- later), and waiting_behind (the unprocessed messages queued behind it, exact). Every unprocessed
-- message is read: no index walk spans the shards. A head held by a running transaction is not
-- told apart: the xmax of a row on a worker node is that node's transaction, which the
-- coordinator's running_xids cannot name.
CREATE OR REPLACE FUNCTION inbox.distributed_heads_sql(c inbox.inbox_config)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT inbox.sql_template($q$SELECT DISTINCT ON ({{aggregate}}) {{aggregate}}::text AS agg, {{id}}::text AS event_id,
               {{event_type}}::text AS event_type, {{error}} AS error, {{retries}} AS retry_count,
               {{next_attempt_at}} AS next_attempt_at, {{received_at}} AS received_at, {{died_at}} AS died_at,
               {{failing_since}} AS failing_since, ({{dead}}) AS dead, ({{pending}}) AND {{backing_off}} AS backing_off,
               count(*) OVER (PARTITION BY {{aggregate}}) - 1 AS waiting_behind
        FROM {{table}} m WHERE {{unprocessed}}
        ORDER BY {{aggregate}}, {{sequence}}, {{tie}}$q$, inbox.vocabulary(c))
$$;

-- The heads CTE of an ordered managed inbox for the operator functions (inbox.aggregate_heads_sql),
-- from the order floor when p_floor and p_resets (SQL of the operator floors' elements 10 and 8)
-- are given.
CREATE OR REPLACE FUNCTION inbox.operator_heads_sql(c inbox.inbox_config, o inbox.inbox_ordering_config,
                                                   p_floor text, p_resets text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT inbox.aggregate_heads_sql(inbox.inbox_table(c), o.aggregate_column, o.sequence_column,
        CASE WHEN p_floor IS NOT NULL THEN inbox.order_floor_sql(p_floor, p_resets) END,
        inbox.vocabulary(c, 'd') ->> 'dead')
$$;

-- The ids of the transactions running now (each holds the lock on its own id).
CREATE OR REPLACE FUNCTION inbox.running_xids()
RETURNS xid[]
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(l.transactionid), '{}') FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
$$;

-- Aggregates whose head cannot be claimed now, with the reason: 'dead_letter' (replay or discard
-- it), 'backing_off' (failed, next attempt at blocked_until) or 'claimed' (held by a running
-- transaction: backend claimed_by_pid). waiting_behind counts the unprocessed messages queued
-- behind the head (exact up to 100,000). blocked_since: when the head became the blocker, by
-- reason: when it died (died_at), its first failure of the run that keeps it backing off
-- (failing_since), or the start of the claiming transaction (xact_start of the holding backend,
-- NULL when pg_stat_activity does not show it to the caller). NULL too for a dead letter that died
-- before the inbox recorded death times. At most p_limit rows (1..1000); empty without ordering.
CREATE OR REPLACE FUNCTION inbox.inbox_blocked_aggregates(p_inbox text, p_limit integer DEFAULT 100)
RETURNS TABLE (aggregate_id text, reason text, event_id text, event_type text, error text,
               retry_count integer, blocked_until timestamptz, claimed_by_pid integer,
               claimed_by text, waiting_behind bigint, head_received_at timestamptz, blocked_since timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_heads text := inbox.blocked_heads_sql(p_inbox, '$3', '$4');
    v_floors text[];
BEGIN
    PERFORM inbox.check_page_limit(p_limit);
    IF v_heads IS NULL THEN
        RETURN;
    END IF;
    IF inbox.is_distributed(c) THEN
        -- One query over the shards (distributed_heads_sql): no 'claimed' heads.
        RETURN QUERY EXECUTE 'SELECT b.agg, CASE WHEN b.dead THEN ''dead_letter'' ELSE ''backing_off'' END,
                   b.event_id, b.event_type, b.error, b.retry_count,
                   CASE WHEN b.backing_off THEN b.next_attempt_at END, NULL::integer, NULL::text,
                   b.waiting_behind, b.received_at, CASE WHEN b.dead THEN b.died_at ELSE b.failing_since END
            FROM (' || inbox.distributed_heads_sql(c) || ') b
            WHERE b.dead OR b.backing_off ORDER BY b.agg LIMIT $1'
            USING p_limit;
        RETURN;
    END IF;
    v_floors := CASE WHEN c.managed THEN inbox.operator_floors(c, inbox.priority_levels(c)) END;
    RETURN QUERY EXECUTE inbox.sql_template($q$
        WITH blocked AS MATERIALIZED ({{blocked_heads}} LIMIT $2)
        SELECT b.agg,
               CASE WHEN b.dead THEN 'dead_letter' WHEN b.backing_off THEN 'backing_off' ELSE 'claimed' END,
               {{id}}::text, {{event_type}}::text, {{error}}, ({{retries}})::integer,
               CASE WHEN b.backing_off THEN {{next_attempt_at}} END,
               l.pid, a.application_name::text,
               (SELECT count(*) FROM (SELECT 1 FROM {{table}} w WHERE {{w.aggregate}}::text = b.agg AND {{w.unprocessed}}
                                      LIMIT 100001) x) - 1,
               {{received_at_tz}},
               CASE WHEN b.dead THEN {{died_at}} WHEN b.backing_off THEN {{failing_since}} ELSE a.xact_start END
        FROM blocked b
        JOIN {{table}} m ON m.ctid = b.tid
        LEFT JOIN pg_catalog.pg_locks l ON b.locker IS NOT NULL AND l.locktype = 'transactionid'
             AND l.transactionid = b.locker AND l.mode = 'ExclusiveLock'
        LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
        ORDER BY b.agg$q$,
        inbox.vocabulary(c) || inbox.vocabulary_over(c, ARRAY['w']) || jsonb_build_object('blocked_heads', v_heads,
            'received_at_tz', coalesce(inbox.vocabulary(c) ->> 'received_at' || '::timestamptz', 'NULL::timestamptz')))
        USING inbox.running_xids(), p_limit, nullif(v_floors[10], '')::bigint, v_floors[8]::bigint;
END;
$$;

-- How many aggregates are blocked, counting among the first p_scan aggregates only (so that a
-- health probe stays cheap with millions of aggregates): n, and exact = false when it stopped there.
-- On an ordered managed inbox, the aggregates (as text) among the first p_scan whose head cannot be
-- claimed now: a dead letter, or backing off. Every waiting message of such an aggregate waits for
-- its head, not for a worker: inbox_health leaves them out of its age and pending checks and
-- counts them as blocked. NULL for other inboxes. A head held by a running transaction is not
-- stalled: its aggregate waits for a worker that is working on it.
CREATE OR REPLACE FUNCTION inbox.stalled_aggregates(p_inbox text, p_scan integer DEFAULT 10000)
RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    v_aggregates text[];
    v_floors text[];
BEGIN
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF NOT FOUND OR NOT c.managed THEN
        RETURN NULL;
    END IF;
    IF inbox.is_distributed(c) THEN
        EXECUTE 'SELECT coalesce(array_agg(h.agg), ''{}'') FROM (
                SELECT h.* FROM (' || inbox.distributed_heads_sql(c) || ') h ORDER BY h.agg LIMIT $1) h
            WHERE h.dead OR h.backing_off'
            INTO v_aggregates USING p_scan;
        RETURN v_aggregates;
    END IF;
    v_floors := inbox.operator_floors(c, inbox.priority_levels(c));
    EXECUTE inbox.sql_template($q$WITH RECURSIVE {{heads}}, walked AS MATERIALIZED (SELECT heads.agg, heads.tid FROM heads LIMIT $1)
        SELECT coalesce(array_agg(walked.agg::text), '{}') FROM walked JOIN {{table}} m ON m.ctid = walked.tid
        WHERE {{retries}} >= {{max_retries}} OR {{backing_off}}$q$,
        inbox.vocabulary(c) || jsonb_build_object('heads', inbox.operator_heads_sql(c, o, '$2', '$3')))
        INTO v_aggregates
        USING p_scan, nullif(v_floors[10], '')::bigint, v_floors[8]::bigint;
    RETURN v_aggregates;
END;
$$;

CREATE OR REPLACE FUNCTION inbox.count_blocked_aggregates(p_inbox text, p_scan integer DEFAULT 10000,
                                                          OUT n bigint, OUT exact boolean)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    o inbox.inbox_ordering_config;
    v_walked bigint;
    v_floors text[];
BEGIN
    n := 0;
    exact := true;
    SELECT * INTO o FROM inbox.inbox_ordering_config WHERE inbox_name = p_inbox;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT c.managed THEN
        EXECUTE 'SELECT count(*) FROM (' || inbox.blocked_heads_sql(p_inbox) || ') b' INTO n USING inbox.running_xids();
        RETURN;
    END IF;
    IF inbox.is_distributed(c) THEN
        -- Dead letters and backing-off heads; a head held by a running transaction is not told apart.
        EXECUTE 'SELECT count(*) FILTER (WHERE h.dead OR h.backing_off), count(*)
            FROM (SELECT h.* FROM (' || inbox.distributed_heads_sql(c) || ') h ORDER BY h.agg LIMIT $1) h'
            INTO n, v_walked USING p_scan;
        exact := v_walked < p_scan;
        RETURN;
    END IF;
    v_floors := inbox.operator_floors(c, inbox.priority_levels(c));
    EXECUTE inbox.sql_template($q$WITH RECURSIVE {{heads}}, walked AS MATERIALIZED (SELECT heads.tid FROM heads LIMIT $2)
        SELECT count(*) FILTER (WHERE {{retries}} >= {{max_retries}} OR {{backing_off}}
                                   OR (m.xmax <> '0'::xid AND m.xmax = ANY ($1))),
               count(*)
        FROM walked JOIN {{table}} m ON m.ctid = walked.tid$q$,
        inbox.vocabulary(c) || jsonb_build_object('heads', inbox.operator_heads_sql(c, o, '$3', '$4')))
        INTO n, v_walked
        USING inbox.running_xids(), p_scan, nullif(v_floors[10], '')::bigint, v_floors[8]::bigint;
    exact := v_walked < p_scan;
END;
$$;

-- Partition lag --------------------------------------------------------------------------------

-- The number of partitions the inbox's workers use: automatic mode's leases, else the partition
-- count a live statically partitioned worker announced, else NULL (one queue).
-- Announced details are read through registry_number: a worker's consumer role writes them, and a
-- string, a fraction or an absurd number there must neither break nor stall health (a partition
-- count of a billion would map each bucket over a billion partitions).
-- A whole number in p_details ->> p_key within p_min..p_max, else NULL (missing, not a number,
-- fractional or out of range).
CREATE OR REPLACE FUNCTION inbox.registry_number(p_details jsonb, p_key text, p_min bigint, p_max bigint)
RETURNS bigint
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN jsonb_typeof(p_details -> p_key) = 'number' THEN
               CASE WHEN (p_details -> p_key)::numeric BETWEEN p_min AND p_max
                         AND (p_details -> p_key)::numeric = trunc((p_details -> p_key)::numeric)
                    THEN (p_details -> p_key)::numeric::bigint END
           END
$$;

CREATE OR REPLACE FUNCTION inbox.partition_count(p_inbox text)
RETURNS integer
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(
        (SELECT max(l.partition_id) + 1 FROM inbox.inbox_partition_leases l WHERE l.inbox_name = p_inbox),
        (SELECT max(inbox.registry_number(r.details, 'partitions', 1, 1024))::integer
         FROM inbox.inbox_worker_registry r
         WHERE r.inbox_name = p_inbox AND r.details ->> 'assignment' = 'static'
           AND r.stopped_at IS NULL AND r.heartbeat_at > now() - interval '5 minutes'))
$$;

-- The owner (0 .. p_partitions-1) of each of the 1,024 buckets: the same rendezvous hash as
-- inbox_bucket_owner, computed for all buckets in one statement.
CREATE OR REPLACE FUNCTION inbox.bucket_owners(p_partitions integer)
RETURNS TABLE (bucket integer, owner integer)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT b, (SELECT w FROM generate_series(0, p_partitions - 1) AS w
               ORDER BY ('x' || substr(md5(b || ':' || w), 1, 8))::bit(32)::bigint DESC, w LIMIT 1)
    FROM generate_series(0, 1023) AS b
$$;

-- Per partition: partition (NULL = the whole inbox when it is not partitioned), waiting
-- (eligible now), backing_off (failed, waiting for their next attempt: not lag), behind_blocked
-- (an ordered inbox's messages that would be eligible but wait behind their aggregate's head,
-- which is dead or backing off: inbox.stalled_aggregates, as inbox_health counts them; they wait
-- for an operator or the head's next attempt, not for a worker, and are not in waiting),
-- counts_exact (false: the backlog has more than 100,000 pending messages and the counts are
-- scaled from the first 100,000), oldest_eligible_age_seconds (the oldest message that could be
-- claimed now, those behind a blocked head passed over as in inbox_health; 0 when none), owner and lease_expires_at (automatic mode) or the statically
-- assigned worker. Managed inboxes; a tracked table reports one row without backoff.
CREATE OR REPLACE FUNCTION inbox.inbox_partition_lag(p_inbox text)
RETURNS TABLE (partition_id integer, waiting bigint, backing_off bigint, counts_exact boolean,
               oldest_eligible_age_seconds bigint, owner text, lease_expires_at timestamptz, behind_blocked bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v jsonb := inbox.vocabulary(c);
    v_parts integer := inbox.partition_count(p_inbox);
    v_cap constant integer := 100000;
    -- An ordered inbox's aggregates whose head is dead or backing off (among the first 10,000).
    v_stalled text[];
    v_sample_from text;
BEGIN
    IF NOT c.managed THEN
        RETURN QUERY SELECT NULL::integer, x.n, 0::bigint, x.exact,
            (inbox.inbox_health(p_inbox) ->> 'oldest_pending_age_seconds')::bigint, NULL::text, NULL::timestamptz,
            0::bigint
            FROM inbox.capped_count(v ->> 'table', (v ->> 'pending') || inbox.tracked_operator_floor_sql(c), v_cap + 1) x;
        RETURN;
    END IF;
    v_stalled := inbox.stalled_aggregates(p_inbox);
    -- The waiting messages sampled: on one server each priority level from its floor
    -- (inbox.operator_levels_sql).
    v_sample_from := inbox.sql_template(CASE WHEN inbox.is_distributed(c)
        THEN '(SELECT m.* FROM {{table}} m WHERE {{pending}} LIMIT {{cap}} + 1) m'
        ELSE '{{levels}} CROSS JOIN LATERAL (SELECT m.* FROM {{table}} m WHERE {{pending}}
              AND m.priority = prio.priority AND m.seq >= prio.floor LIMIT {{cap}} + 1) m' END,
        v || jsonb_build_object('cap', v_cap, 'levels', CASE WHEN inbox.is_distributed(c) THEN ''
                                                            ELSE inbox.operator_levels_sql(c) END));
    RETURN QUERY EXECUTE inbox.sql_template($q$
        WITH sample AS MATERIALIZED (
            SELECT m.bucket, m.next_attempt_at <= now() AS eligible, {{stalled}} AS stalled
            FROM {{sample_from}} LIMIT {{cap}} + 1),
        scale AS (SELECT CASE WHEN count(*) > {{cap}}
                      THEN greatest(inbox.estimated_count({{table_literal}}, {{pending_literal}}), count(*))::numeric / count(*)
                      ELSE 1 END AS factor, count(*) <= {{cap}} AS exact FROM sample),
        owners AS (SELECT o.bucket, CASE WHEN $1 IS NULL THEN NULL ELSE o.owner END AS part
                   FROM inbox.bucket_owners(coalesce($1, 1)) o),
        parts AS (SELECT CASE WHEN $1 IS NULL THEN NULL ELSE g END AS part
                  FROM generate_series(0, coalesce($1, 1) - 1) g),
        counted AS (SELECT ow.part, count(*) FILTER (WHERE s.eligible AND NOT s.stalled) AS waiting,
                           count(*) FILTER (WHERE NOT s.eligible) AS backing_off,
                           count(*) FILTER (WHERE s.eligible AND s.stalled) AS behind_blocked
                    FROM sample s JOIN owners ow ON ow.bucket = s.bucket GROUP BY ow.part)
        SELECT p.part,
               round(coalesce(ct.waiting, 0) * sc.factor)::bigint,
               round(coalesce(ct.backing_off, 0) * sc.factor)::bigint,
               sc.exact,
               coalesce(floor(inbox.seconds_since(inbox.oldest_eligible({{inbox}}, (
                   SELECT coalesce(bit_or(B'1'::bit(1024) >> ow.bucket), B'0'::bit(1024))::varbit
                   FROM owners ow WHERE ow.part IS NOT DISTINCT FROM p.part), $2)))::bigint, 0),
               coalesce(l.owner_id, (SELECT string_agg(r.worker_id, ', ' ORDER BY r.worker_id)
                                     FROM inbox.inbox_worker_registry r
                                     WHERE r.inbox_name = {{inbox}} AND r.stopped_at IS NULL
                                       AND r.details ->> 'assignment' = 'static'
                                       AND inbox.registry_number(r.details, 'partition', 0, 1023) = p.part)),
               l.lease_expires_at,
               round(coalesce(ct.behind_blocked, 0) * sc.factor)::bigint
        FROM parts p CROSS JOIN scale sc
        LEFT JOIN counted ct ON ct.part IS NOT DISTINCT FROM p.part
        LEFT JOIN inbox.inbox_partition_leases l ON l.inbox_name = {{inbox}} AND l.partition_id = p.part
        ORDER BY p.part$q$,
        v || jsonb_build_object('cap', v_cap, 'table_literal', format('%L', v ->> 'table'), 'sample_from', v_sample_from,
                                'pending_literal', format('%L', v ->> 'pending'),
                                'stalled', CASE WHEN cardinality(v_stalled) > 0
                                                THEN format('%s::text = ANY (%L::text[])', v ->> 'aggregate', v_stalled)
                                                ELSE 'false' END))
        USING v_parts, v_stalled;
END;
$$;

-- received_at of the oldest message of a managed inbox that could be claimed now, among the
-- buckets of p_mask (NULL: all): the first eligible message of each priority level by arrival
-- (seq), each level read from its floor (inbox.operator_levels_sql). With p_stalled
-- (inbox.stalled_aggregates) the messages of those aggregates are passed over, as inbox_health
-- passes them over (inbox.oldest_pending_sql): among the first 10,000 eligible messages of each
-- priority, so a long queue behind a dead head costs no more than that.
CREATE OR REPLACE FUNCTION inbox.oldest_eligible(p_inbox text, p_mask varbit, p_stalled text[] DEFAULT NULL)
RETURNS timestamptz
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off
AS $$
DECLARE
    c inbox.inbox_config := inbox.managed_config_of(p_inbox, 'oldest_eligible');
    v jsonb := inbox.vocabulary(c);
    v_oldest timestamptz;
BEGIN
    IF inbox.is_distributed(c) THEN
        -- Citus runs a recursive CTE only for one aggregate: the oldest over every shard, exact.
        EXECUTE inbox.sql_template('SELECT min(m.received_at) FROM {{table}} m
            WHERE {{pending}} AND m.next_attempt_at <= now() AND ($1 IS NULL OR get_bit($1, m.bucket) = 1)'
            || CASE WHEN cardinality(p_stalled) > 0 AND v ? 'aggregate'
                    THEN ' AND NOT coalesce({{aggregate}}::text = ANY ($2), false)' ELSE '' END, v)
            INTO v_oldest USING p_mask, p_stalled;
        RETURN v_oldest;
    END IF;
    EXECUTE inbox.sql_template($q$SELECT min(f.received_at) FROM {{levels}} CROSS JOIN LATERAL ({{first}}) f$q$,
        v || jsonb_build_object('levels', inbox.operator_levels_sql(c), 'first', inbox.sql_template(CASE WHEN cardinality(p_stalled) > 0 AND v ? 'aggregate' THEN
            'SELECT m.received_at FROM (SELECT m.* FROM {{table}} m
                 WHERE {{pending}} AND m.priority = prio.priority AND m.seq >= prio.floor
                   AND m.next_attempt_at <= now() AND ($1 IS NULL OR get_bit($1, m.bucket) = 1)
                 ORDER BY m.seq LIMIT 10000) m
             WHERE NOT coalesce({{aggregate}}::text = ANY ($2), false)
             ORDER BY m.seq LIMIT 1'
        ELSE
            'SELECT m.received_at FROM {{table}} m
             WHERE {{pending}} AND m.priority = prio.priority AND m.seq >= prio.floor
               AND m.next_attempt_at <= now() AND ($1 IS NULL OR get_bit($1, m.bucket) = 1)
             ORDER BY m.seq LIMIT 1' END, v)))
        INTO v_oldest USING p_mask, p_stalled;
    RETURN v_oldest;
END;
$$;

-- The oldest message of a managed inbox that could be claimed now, with its bucket: the same
-- descents as oldest_eligible, over every bucket.
CREATE OR REPLACE FUNCTION inbox.oldest_eligible_message(p_inbox text, OUT received_at timestamptz, OUT bucket integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off SET enable_bitmapscan = off SET jit = off
AS $$
DECLARE
    c inbox.inbox_config := inbox.managed_config_of(p_inbox, 'oldest_eligible_message');
BEGIN
    IF inbox.is_distributed(c) THEN
        -- Citus runs a recursive CTE only for one aggregate: one search over every shard.
        EXECUTE inbox.sql_template('SELECT m.received_at, m.bucket::integer FROM {{table}} m
            WHERE {{pending}} AND m.next_attempt_at <= now() ORDER BY m.received_at LIMIT 1', inbox.vocabulary(c))
            INTO received_at, bucket;
        RETURN;
    END IF;
    EXECUTE inbox.sql_template($q$SELECT f.received_at, f.bucket::integer FROM {{levels}} CROSS JOIN LATERAL (
            SELECT m.received_at, m.bucket FROM {{table}} m
            WHERE {{pending}} AND m.priority = prio.priority AND m.seq >= prio.floor
              AND m.next_attempt_at <= now()
            ORDER BY m.seq LIMIT 1) f
        ORDER BY f.received_at LIMIT 1$q$,
        inbox.vocabulary(c) || jsonb_build_object('levels', inbox.operator_levels_sql(c)))
        INTO received_at, bucket;
END;
$$;

-- The extra numbers of inbox_health: blocked aggregates (counted among the first 10,000
-- aggregates), the oldest claimable message's age and partition (the worst partition's lag), and
-- the messages in process (held by running transactions among the first 1,000 waiting). Cheap: a loose index scan over
-- the aggregates' heads, and a few claim-index descents per partition.
CREATE OR REPLACE FUNCTION inbox.operator_health(p_inbox text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_blocked record;
    v_parts integer;
    v_worst_part integer;
    v_worst timestamptz;
    v_bucket integer;
    v_processing bigint;
BEGIN
    SELECT * INTO v_blocked FROM inbox.count_blocked_aggregates(p_inbox);
    IF c.managed THEN
        -- The worst partition's lag is the age of the oldest claimable message of the whole inbox
        -- (no partition holds an older one): one search, then the partition of its bucket.
        SELECT o.received_at, o.bucket INTO v_worst, v_bucket FROM inbox.oldest_eligible_message(p_inbox) o;
        v_parts := inbox.partition_count(p_inbox);
        IF v_parts IS NOT NULL AND v_bucket IS NOT NULL THEN
            v_worst_part := inbox.inbox_bucket_owner(v_bucket, v_parts);
        END IF;
    END IF;
    -- A distributed inbox's rows carry the xids of their worker nodes, which running_xids (the
    -- coordinator's) cannot name: no count there.
    IF c.managed AND NOT inbox.is_distributed(c) THEN
        -- Held by running transactions: workers claim from the front of the claim order, so the
        -- first 1,000 waiting messages hold (nearly) every message in process.
        EXECUTE inbox.sql_template($q$SELECT count(*) FROM (
                SELECT m.xmax FROM {{levels}} CROSS JOIN LATERAL (
                    SELECT m.xmax, m.priority, m.seq FROM {{table}} m
                    WHERE {{pending}} AND m.priority = prio.priority AND m.seq >= prio.floor
                    ORDER BY m.seq LIMIT 1000) m
                ORDER BY m.priority, m.seq LIMIT 1000) x
            WHERE x.xmax <> '0'::xid AND x.xmax = ANY ($1)$q$,
            inbox.vocabulary(c) || jsonb_build_object('levels', inbox.operator_levels_sql(c)))
            INTO v_processing USING inbox.running_xids();
    END IF;
    RETURN jsonb_build_object(
        'processing_count', coalesce(v_processing, 0),
        'blocked_aggregates', v_blocked.n,
        'blocked_aggregates_exact', v_blocked.exact,
        'worst_partition', v_worst_part,
        -- seconds_since: a tampered received_at ('-infinity', the future) must not break health.
        'worst_partition_lag_seconds', coalesce(floor(inbox.seconds_since(v_worst))::bigint, 0));
END;
$$;

-- Workers ----------------------------------------------------------------------------------------

-- A worker's announcement (every gauge refresh): registers or refreshes it and forgets workers of
-- the inbox silent for more than an hour. p_details: host, pid, assignment, partition, partitions,
-- concurrency, claim_ahead, interval_seconds, spread (at most 2 kB).
CREATE OR REPLACE FUNCTION inbox.worker_announce(p_inbox text, p_worker text, p_details jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM inbox.inbox_config_of(p_inbox);
    IF p_worker IS NULL OR length(p_worker) > 200 OR length(coalesce(p_details, '{}')::text) > 2048 THEN
        RAISE EXCEPTION 'worker id (at most 200 characters) and details (at most 2 kB) are required'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO inbox.inbox_worker_registry AS r (inbox_name, worker_id, details, application_name, backend_pid)
    VALUES (p_inbox, p_worker, coalesce(p_details, '{}'), current_setting('application_name', true), pg_backend_pid())
    ON CONFLICT (inbox_name, worker_id) DO UPDATE
        SET details = EXCLUDED.details, application_name = EXCLUDED.application_name,
            backend_pid = EXCLUDED.backend_pid, heartbeat_at = now(), stopped_at = NULL;
    DELETE FROM inbox.inbox_worker_registry
    WHERE inbox_name = p_inbox AND heartbeat_at < now() - interval '1 hour';
END;
$$;

-- A worker stopping in an orderly way: kept for an hour as "stopped".
CREATE OR REPLACE FUNCTION inbox.worker_stopped(p_inbox text, p_worker text)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    UPDATE inbox.inbox_worker_registry SET stopped_at = now()
    WHERE inbox_name = p_inbox AND worker_id = p_worker
$$;

-- Where a worker sharing every head of an ordered inbox stands among its peers: the workers of the
-- inbox that announced themselves with "spread" (Java workers without partitions), have not
-- stopped and announced within three of their own intervals. rank: p_worker's place among them by
-- id (0-based; NULL when it is not one of them), peers: how many they are. Each such worker prefers
-- the buckets of partition rank of peers in its claims (docs/consuming.md, "Several workers on an
-- ordered inbox"); a preference only, the head locks keep the order.
CREATE OR REPLACE FUNCTION inbox.worker_peers(p_inbox text, p_worker text)
RETURNS TABLE (rank integer, peers integer)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (array_position(array_agg(r.worker_id ORDER BY r.worker_id COLLATE "C"), p_worker) - 1)::integer,
           count(*)::integer
    FROM inbox.inbox_worker_registry r
    WHERE r.inbox_name = p_inbox AND r.stopped_at IS NULL
      AND jsonb_typeof(r.details -> 'spread') = 'boolean' AND (r.details ->> 'spread')::boolean
      AND r.heartbeat_at > now() - 3 * coalesce(inbox.registry_number(r.details, 'interval_seconds', 1, 604800), 20)
                                       * interval '1 second'
$$;

-- Live and recently gone workers of an inbox: state 'live' (announced within the last minute, or
-- three of its announcement intervals if longer), 'silent' (no announcement since: crashed, hung
-- or cut off) or 'stopped'; with what each announced about itself (host, pid, assignment,
-- concurrency, claim ahead: NULL when missing or not of the expected type), the
-- partitions each holds in automatic mode and the earliest expiry of those leases. Workers of the
-- automatic mode that do not announce themselves (other languages) are listed from their leases.
CREATE OR REPLACE FUNCTION inbox.inbox_workers(p_inbox text)
RETURNS TABLE (worker_id text, state text, host text, pid bigint, application_name text, assignment text,
               concurrency integer, claim_ahead boolean,
               partitions_held integer[], lease_expires_at timestamptz, last_heartbeat timestamptz,
               started_at timestamptz, stopped_at timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM inbox.inbox_config_of(p_inbox);
    RETURN QUERY
    WITH ids AS (
        SELECT r.worker_id FROM inbox.inbox_worker_registry r WHERE r.inbox_name = p_inbox
        UNION
        SELECT w.worker_id FROM inbox.inbox_workers w WHERE w.inbox_name = p_inbox)
    SELECT ids.worker_id,
           CASE WHEN r.stopped_at IS NOT NULL THEN 'stopped'
                WHEN greatest(r.heartbeat_at, w.heartbeat_at) > now() - greatest(interval '1 minute',
                     3 * coalesce(inbox.registry_number(r.details, 'interval_seconds', 0, 604800), 0) * interval '1 second') THEN 'live'
                ELSE 'silent' END,
           r.details ->> 'host', inbox.registry_number(r.details, 'pid', 0, 9223372036854775807), r.application_name,
           coalesce(r.details ->> 'assignment', CASE WHEN w.worker_id IS NOT NULL THEN 'automatic' END),
           inbox.registry_number(r.details, 'concurrency', 1, 2147483647)::integer,
           CASE WHEN jsonb_typeof(r.details -> 'claim_ahead') = 'boolean'
                THEN (r.details ->> 'claim_ahead')::boolean END,
           coalesce(h.parts, '{}'), h.expires,
           greatest(r.heartbeat_at, w.heartbeat_at),
           coalesce(r.started_at, w.started_at), r.stopped_at
    FROM ids
    LEFT JOIN inbox.inbox_worker_registry r ON r.inbox_name = p_inbox AND r.worker_id = ids.worker_id
    LEFT JOIN inbox.inbox_workers w ON w.inbox_name = p_inbox AND w.worker_id = ids.worker_id
    LEFT JOIN LATERAL (
        SELECT array_agg(l.partition_id ORDER BY l.partition_id) AS parts, min(l.lease_expires_at) AS expires
        FROM inbox.inbox_partition_leases l
        WHERE l.inbox_name = p_inbox AND l.owner_id = ids.worker_id AND l.lease_expires_at > now()) h ON true
    ORDER BY 2, ids.worker_id;
END;
$$;

-- Dead letters by group ----------------------------------------------------------------------

-- The predicate selecting dead letters over alias m: $1 event ids (text[]), or $2 event type with
-- $3 normalised error (a group of inbox_dlq_groups), or $2 alone (every dead letter of a type).
CREATE OR REPLACE FUNCTION inbox.dead_selection_sql(c inbox.inbox_config, p_by_ids boolean, p_by_error boolean)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT inbox.state_predicate(c, 'dead') || ' AND ' ||
        CASE WHEN p_by_ids THEN format('m.%I = ANY ($1::%s[])', c.id_column, inbox.id_type(c))
             ELSE format('m.%I::text IS NOT DISTINCT FROM $2', c.event_type_column)
                  || CASE WHEN p_by_error THEN format(' AND inbox.normalize_error(%s) = $3',
                         inbox.error_sql(c))
                     ELSE '' END END
$$;

CREATE OR REPLACE FUNCTION inbox.check_dead_selection(p_event_ids text[], p_event_type text, p_error text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_event_ids IS NOT NULL AND (p_event_type IS NOT NULL OR p_error IS NOT NULL) THEN
        RAISE EXCEPTION 'select dead letters by event ids, or by event type (and error group), not both'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF cardinality(p_event_ids) > 100000 THEN
        RAISE EXCEPTION 'at most 100000 event ids at once, got %', cardinality(p_event_ids)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END;
$$;

-- Dead letters grouped by event type and normalised error (numbers and ids stripped), largest
-- group first: count, first and last arrival, first and last death (died_at: NULL when every
-- letter of the group died before the inbox recorded death times), one example. At most p_limit groups (1..1000).
-- Reads every dead letter once (through <name>_dlq_idx for a managed inbox).
CREATE OR REPLACE FUNCTION inbox.inbox_dlq_groups(p_inbox text, p_limit integer DEFAULT 100)
RETURNS TABLE (event_type text, error_group text, dead bigint, first_seen timestamptz, last_seen timestamptz,
               example_event_id text, example_error text, first_died_at timestamptz, last_died_at timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v jsonb := inbox.vocabulary(c);
BEGIN
    PERFORM inbox.check_page_limit(p_limit);
    RETURN QUERY EXECUTE inbox.sql_template($q$
        SELECT g.event_type, g.error_group, g.n, g.first_seen, g.last_seen, g.example[1], g.example[2],
               g.first_died, g.last_died
        FROM (SELECT {{event_type}}::text AS event_type, inbox.normalize_error({{error}}) AS error_group, count(*) AS n,
                     min({{received_at_tz}}) AS first_seen, max({{received_at_tz}}) AS last_seen,
                     min({{died_at}}) AS first_died, max({{died_at}}) AS last_died,
                     min(ARRAY[{{id}}::text, left({{error}}, 2000)]) AS example
              FROM {{table}} m WHERE {{dead}} GROUP BY 1, 2) g
        ORDER BY g.n DESC, g.event_type, g.error_group
        LIMIT $1$q$,
        v || jsonb_build_object('received_at_tz', coalesce(v ->> 'received_at' || '::timestamptz', 'NULL::timestamptz')))
        USING p_limit;
END;
$$;

-- How many dead letters a selection holds now (what a replay or discard of it would touch).
CREATE OR REPLACE FUNCTION inbox.count_dead_letters(p_inbox text, p_event_ids text[] DEFAULT NULL,
                                                    p_event_type text DEFAULT NULL, p_error text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_count bigint;
BEGIN
    PERFORM inbox.check_dead_selection(p_event_ids, p_event_type, p_error);
    EXECUTE 'SELECT count(*) FROM ' || inbox.inbox_table(c) || ' m WHERE '
            || inbox.dead_selection_sql(c, p_event_ids IS NOT NULL, p_error IS NOT NULL)
        INTO v_count USING p_event_ids, p_event_type, p_error;
    RETURN v_count;
END;
$$;

-- Dead letters one page at a time, oldest first: of the whole DLQ, an event type, or a group
-- (p_event_type and p_error as inbox_dlq_groups returns them). Paging by the last row's
-- (received_at, event_id): pass them as p_after_received_at / p_after_event_id. The payload is
-- left out (see inbox_message for one message in full).
CREATE OR REPLACE FUNCTION inbox.inbox_dead_letters(p_inbox text, p_event_type text DEFAULT NULL,
    p_error text DEFAULT NULL, p_limit integer DEFAULT 50,
    p_after_received_at timestamptz DEFAULT NULL, p_after_event_id text DEFAULT NULL)
RETURNS TABLE (event_id text, event_type text, aggregate_id text, received_at timestamptz, error text,
               retry_count integer, trace_id text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v jsonb := inbox.vocabulary(c);
BEGIN
    PERFORM inbox.check_page_limit(p_limit);
    RETURN QUERY EXECUTE inbox.sql_template($q$
        SELECT {{id}}::text, {{event_type}}::text, {{aggregate_text}}, {{received_at_tz}}, left({{error}}, 500),
               ({{retries}})::integer, {{trace_id}}
        FROM {{table}} m
        WHERE {{dead}} {{selection}}
          AND ($5 IS NULL OR ({{received_at_tz}}, {{id}}::text) > ($5, $6))
        ORDER BY {{received_at_tz}}, {{id}}::text
        LIMIT $4$q$,
        v || jsonb_build_object(
            'aggregate_text', CASE WHEN c.aggregate_column IS NULL THEN 'NULL::text' ELSE format('m.%I::text', c.aggregate_column) END,
            'received_at_tz', coalesce(v ->> 'received_at' || '::timestamptz', 'NULL::timestamptz'),
            'trace_id', CASE WHEN c.managed THEN 'm.trace_id' ELSE 'NULL::text' END,
            -- The selection without its dead test, which the query has already.
            'selection', CASE WHEN p_error IS NOT NULL THEN 'AND ' || replace(
                                  inbox.dead_selection_sql(c, false, true), (v ->> 'dead') || ' AND ', '')
                              WHEN p_event_type IS NOT NULL THEN 'AND ' || replace(
                                  inbox.dead_selection_sql(c, false, false), (v ->> 'dead') || ' AND ', '')
                              ELSE '' END))
        USING NULL::text[], p_event_type, p_error, p_limit, p_after_received_at, p_after_event_id;
END;
$$;

-- One message in full, whatever its state ('pending', 'processed' or 'dead'), in the managed
-- layout (columns a tracked table does not map are NULL), with its failure history: failing_since
-- (first failure since it last waited clean), died_at (when it became a dead letter; kept once
-- processed, cleared by a replay) and attempts (its last five failed attempts, oldest first:
-- [{"attempt": n, "at": time, "error": text cut to 500 characters}]). NULL where it never failed,
-- or failed before the inbox recorded them. No row when it does not exist.
CREATE OR REPLACE FUNCTION inbox.inbox_message(p_inbox text, p_event_id text)
RETURNS TABLE (event_id text, state text, event_type text, source text, aggregate_id text, payload jsonb,
               received_at timestamptz, processed_at timestamptz, next_attempt_at timestamptz, error text,
               retry_count integer, trace_id text, failing_since timestamptz, died_at timestamptz, attempts jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v jsonb := inbox.vocabulary(c);
BEGIN
    IF c.managed THEN
        RETURN QUERY EXECUTE inbox.sql_template($q$SELECT m.event_id, CASE WHEN {{processed}} THEN 'processed'
                WHEN {{dead}} THEN 'dead' ELSE 'pending' END,
                m.event_type, m.source, m.aggregate_id, m.payload, m.received_at, m.processed_at,
                m.next_attempt_at, m.error, m.retry_count, m.trace_id, m.failing_since, m.died_at, m.attempts
            FROM {{table}} m WHERE m.event_id = $1$q$, v)
            USING p_event_id;
        RETURN;
    END IF;
    RETURN QUERY EXECUTE inbox.sql_template($q$SELECT {{id}}::text,
            CASE WHEN {{processed}} THEN 'processed' WHEN {{dead}} THEN 'dead' ELSE 'pending' END,
            {{event_type}}::text, NULL::text, {{aggregate_text}}, NULL::jsonb, {{received_at_tz}}, {{processed_at}}::timestamptz,
            {{next_attempt_at}}, {{error}}, ({{retries}})::integer, NULL::text, {{failing_since}}, {{died_at}}, {{attempts}}
        FROM {{table}} m WHERE {{id}} = $1::{{id_type}}$q$,
        v || jsonb_build_object(
            'aggregate_text', CASE WHEN c.aggregate_column IS NULL THEN 'NULL::text' ELSE format('m.%I::text', c.aggregate_column) END,
            'received_at_tz', coalesce(v ->> 'received_at' || '::timestamptz', 'NULL::timestamptz'),
            'id_type', inbox.id_type(c)))
        USING p_event_id;
END;
$$;

-- Messages processed and attempts failed per minute over the last p_minutes (1..1440), oldest
-- minute first, minutes without any included (for a chart). Reads the window's processed rows
-- (BRIN on processed_at) and the failure histories of the messages that last failed in the window
-- (<name>_failed_idx; a tracked inbox's side table, which holds only messages that failed and are
-- not processed yet). A message keeps its last five attempts, so one that failed more often
-- within the window counts five there. An attempt whose time is not one (the table's owner may
-- write anything there) is not counted: the datetime() of a silent jsonpath is NULL for it.
CREATE OR REPLACE FUNCTION inbox.inbox_throughput(p_inbox text, p_minutes integer DEFAULT 60)
RETURNS TABLE (minute timestamptz, processed bigint, failed bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    IF p_minutes IS NULL OR p_minutes < 1 OR p_minutes > 1440 THEN
        RAISE EXCEPTION 'minutes must be in 1..1440, got %', p_minutes USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY EXECUTE inbox.sql_template($q$
        SELECT g.minute, coalesce(p.n, 0), coalesce(f.n, 0)
        FROM generate_series(date_trunc('minute', now()) - make_interval(mins => $1 - 1),
                             date_trunc('minute', now()), interval '1 minute') AS g(minute)
        LEFT JOIN (SELECT date_trunc('minute', {{processed_at}}::timestamptz) AS minute, count(*) AS n FROM {{table}} m
                   WHERE {{processed_at}} >= date_trunc('minute', now()) - make_interval(mins => $1 - 1)
                   GROUP BY 1) p ON p.minute = g.minute
        LEFT JOIN (SELECT date_trunc('minute', a.at) AS minute, count(*) AS n
                   FROM {{failures}} h CROSS JOIN LATERAL jsonb_array_elements(
                            CASE WHEN jsonb_typeof(h.attempts) = 'array' THEN h.attempts END) e
                   CROSS JOIN LATERAL (SELECT (jsonb_path_query_first(e.value, '$.at.datetime()', '{}', true)
                                               #>> '{}')::timestamptz AS at) a
                   WHERE h.last_failed_at >= date_trunc('minute', now()) - make_interval(mins => $1 - 1)
                     AND a.at >= date_trunc('minute', now()) - make_interval(mins => $1 - 1)
                   GROUP BY 1) f ON f.minute = g.minute
        ORDER BY g.minute$q$, inbox.vocabulary(c) || jsonb_build_object('failures',
            CASE WHEN c.managed THEN inbox.inbox_table(c) ELSE inbox.retry_state_table(c) END))
        USING p_minutes;
END;
$$;

-- What vacuum still owes an inbox's table, from the server's statistics (which arrive within a
-- second or so), and what decides when it comes next: a claimed message's index entries stay in
-- front of every claim until vacuum removes them (docs/operations.md, "PostgreSQL settings that
-- matter"). last_vacuum is manual or auto (NULL: never); the cost delay is the table's own, else
-- the server's. Reads catalogs and statistics only: cheap at any size.
CREATE OR REPLACE FUNCTION inbox.inbox_vacuum(p_inbox text)
RETURNS TABLE (dead_rows bigint, live_rows bigint, last_vacuum timestamptz, autovacuum_runs bigint,
               autovacuum boolean, autovacuum_naptime_seconds bigint,
               autovacuum_cost_delay_ms double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(s.n_dead_tup, 0), coalesce(s.n_live_tup, 0),
           greatest(s.last_vacuum, s.last_autovacuum), coalesce(s.autovacuum_count, 0),
           current_setting('autovacuum')::boolean,
           extract(epoch FROM current_setting('autovacuum_naptime')::interval)::bigint,
           coalesce(
               (SELECT opt.option_value::double precision FROM pg_options_to_table(t.reloptions) opt
                WHERE opt.option_name = 'autovacuum_vacuum_cost_delay'),
               1000 * extract(epoch FROM (CASE current_setting('autovacuum_vacuum_cost_delay')
                                              WHEN '-1' THEN current_setting('vacuum_cost_delay')
                                              ELSE current_setting('autovacuum_vacuum_cost_delay')
                                          END)::interval)::double precision)
    FROM pg_class t LEFT JOIN pg_stat_all_tables s ON s.relid = t.oid
    WHERE t.oid = inbox.inbox_table(inbox.inbox_config_of(p_inbox))::regclass
$$;

-- Operator actions on dead letters ------------------------------------------------------------

-- Replays one group of inbox_dlq_groups (event type and normalised error), or every dead letter
-- of an event type when p_error is NULL; like replay_inbox_messages (retry count 0, claimable at
-- once, last error kept). Audited. Returns the number of messages replayed.
CREATE OR REPLACE FUNCTION inbox.replay_dlq_group(p_inbox text, p_event_type text, p_error text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
    v_count integer;
BEGIN
    v_count := inbox.replay_dead_letters(c, inbox.dead_selection_sql(c, false, p_error IS NOT NULL),
        NULL, p_event_type, p_error);
    PERFORM inbox.log_operator_action('replay', p_inbox,
        jsonb_build_object('event_type', p_event_type, 'error_group', p_error), v_count);
    RETURN v_count;
END;
$$;

-- Pauses consumption: within 200 ms every claim of the inbox (claim_<name>, and so every worker)
-- returns nothing, until resume_inbox. Messages still arrive; claims already made finish. Health
-- says so (paused_since, and "paused: degraded"). Audited. Returns false when it was paused already.
CREATE OR REPLACE FUNCTION inbox.pause_inbox(p_inbox text)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
BEGIN
    UPDATE inbox.inbox_config SET paused_at = now() WHERE inbox_name = p_inbox AND paused_at IS NULL;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM inbox.log_operator_action('pause', p_inbox, '{}', NULL);
    RETURN true;
END;
$$;

-- Resumes consumption paused by pause_inbox (within 200 ms). Audited. Returns false when it was
-- not paused.
CREATE OR REPLACE FUNCTION inbox.resume_inbox(p_inbox text)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
BEGIN
    UPDATE inbox.inbox_config SET paused_at = NULL WHERE inbox_name = p_inbox AND paused_at IS NOT NULL;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM inbox.log_operator_action('resume', p_inbox, jsonb_build_object('paused_since', c.paused_at), NULL);
    -- Listening workers wake up at commit instead of at their next poll.
    PERFORM pg_notify(c.notify_channel, c.inbox_name);
    RETURN true;
END;
$$;

-- Makes waiting messages that are backing off after a failure due now: the next claim may take
-- them (an ordered inbox's still only as their aggregate's head). Dead letters are replayed with
-- replay_inbox_messages instead; processed messages and messages already due are left alone.
-- Audited. Returns the number of messages made due.
CREATE OR REPLACE FUNCTION inbox.retry_now(p_inbox text, p_event_ids text[])
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
    v_count integer;
BEGIN
    PERFORM inbox.check_dead_selection(p_event_ids, NULL, NULL);
    IF p_event_ids IS NULL THEN
        RAISE EXCEPTION 'retry_now needs the event ids of the messages to retry'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF c.managed THEN
        EXECUTE format('UPDATE %s m SET next_attempt_at = now() WHERE m.event_id = ANY ($1) AND %s
                          AND m.next_attempt_at > now()', inbox.inbox_table(c), inbox.state_predicate(c, 'pending'))
            USING p_event_ids;
    ELSE
        EXECUTE format('UPDATE %s s SET next_attempt_at = now() WHERE s.message_id = ANY ($1::%s[])
                          AND s.next_attempt_at > now()
                          AND EXISTS (SELECT 1 FROM %s m WHERE m.%I = s.message_id AND %s)',
                       inbox.retry_state_table(c), inbox.id_type(c), inbox.inbox_table(c), c.id_column,
                       inbox.state_predicate(c, 'pending'))
            USING p_event_ids;
    END IF;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    PERFORM inbox.log_operator_action('retry_now', p_inbox, jsonb_build_object('event_ids', p_event_ids), v_count);
    RETURN v_count;
END;
$$;

-- Gives up on dead letters by hand: marks the selected ones processed (retention deletes them
-- later; their event ids keep deduplicating until then). Selection as count_dead_letters. Audited
-- as mark_processed. Returns the number of messages marked.
CREATE OR REPLACE FUNCTION inbox.discard_dead_letters(p_inbox text, p_event_ids text[] DEFAULT NULL,
                                                      p_event_type text DEFAULT NULL, p_error text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.acted_on_by_caller(p_inbox);
    v_count integer := 0;
BEGIN
    PERFORM inbox.check_dead_selection(p_event_ids, p_event_type, p_error);
    EXECUTE format('UPDATE %s m SET %I = now() WHERE %s', inbox.inbox_table(c), c.processed_at_column,
        inbox.dead_selection_sql(c, p_event_ids IS NOT NULL, p_error IS NOT NULL))
        USING p_event_ids, p_event_type, p_error;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    IF v_count > 0 THEN
        -- The messages they held back may now be claimed, below the claim floors that passed them.
        PERFORM inbox.reset_ordered_claim_floors(c);
    END IF;
    PERFORM inbox.log_operator_action('mark_processed', p_inbox,
        jsonb_strip_nulls(jsonb_build_object('event_ids', p_event_ids, 'event_type', p_event_type, 'error_group', p_error)),
        v_count);
    RETURN v_count;
END;
$$;

-- Search ---------------------------------------------------------------------------------------

-- Whether a valid, non-partial index of access method p_am (btree, gin) has p_column as its first
-- key column: what lets find_messages look a key up instead of scanning.
CREATE OR REPLACE FUNCTION inbox.has_full_index(p_table text, p_column text, p_am text)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (
        SELECT 1 FROM pg_index i
        JOIN pg_class x ON x.oid = i.indexrelid
        JOIN pg_am a ON a.oid = x.relam
        JOIN pg_attribute att ON att.attrelid = i.indrelid AND att.attnum = i.indkey[0]
        WHERE i.indrelid = p_table::regclass AND i.indpred IS NULL AND i.indisvalid
          AND a.amname = p_am AND att.attname = p_column)
$$;

-- A payload match for find_messages from what an operator types: a JSON object as it is
-- ('{"customer": {"id": 42}}'), or a key path and a value ('customer.id = 42': keys separated by
-- dots, the value JSON when it parses as JSON, else a string, so 'status = open' and
-- 'status = "open"' are the same and 'id = 42' matches the number, 'id = "42"' the string).
-- NULL for NULL or blank. Anything else is invalid_parameter_value (22023) with what is wrong.
CREATE OR REPLACE FUNCTION inbox.payload_match(p_expression text)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_text text := btrim(p_expression);
    v_eq integer;
    v_keys text[];
    v_value text;
    v_match jsonb;
    v_detail text;
BEGIN
    IF v_text IS NULL OR v_text = '' THEN
        RETURN NULL;
    END IF;
    IF length(v_text) > 8192 THEN
        RAISE EXCEPTION 'a payload match is at most 8192 characters, got %', length(v_text)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF left(v_text, 1) = '{' THEN
        BEGIN
            RETURN v_text::jsonb;
        EXCEPTION WHEN invalid_text_representation OR invalid_json_text THEN
            GET STACKED DIAGNOSTICS v_detail = PG_EXCEPTION_DETAIL;
            RAISE EXCEPTION 'the payload match is not valid JSON: % %', SQLERRM, left(coalesce(v_detail, ''), 200)
                USING ERRCODE = 'invalid_parameter_value';
        END;
    END IF;
    v_eq := position('=' IN v_text);
    IF v_eq = 0 THEN
        RAISE EXCEPTION 'write a payload match as key.path = value (for example customer.id = 42) or as a JSON object'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_keys := ARRAY(SELECT btrim(k) FROM unnest(string_to_array(left(v_text, v_eq - 1), '.')) AS k);
    IF cardinality(v_keys) = 0 OR cardinality(v_keys) > 32 OR '' = ANY (v_keys) THEN
        RAISE EXCEPTION 'a key path is 1 to 32 keys separated by dots (for example customer.id), got %',
            quote_literal(left(btrim(left(v_text, v_eq - 1)), 100))
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_value := btrim(substr(v_text, v_eq + 1));
    IF v_value = '' THEN
        RAISE EXCEPTION 'a payload match needs a value after =' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    BEGIN
        v_match := v_value::jsonb;
    EXCEPTION WHEN invalid_text_representation OR invalid_json_text THEN
        v_match := to_jsonb(v_value);
    END;
    FOR i IN REVERSE cardinality(v_keys)..1 LOOP
        v_match := jsonb_build_object(v_keys[i], v_match);
    END LOOP;
    RETURN v_match;
END;
$$;

-- Messages by event id, aggregate id or payload containment (payload @> p_payload_match, see
-- payload_match), whatever their state; the keys given must all match. At most p_limit rows
-- (1..1000), oldest first, as inbox_message. Bounded: an event id is a primary-key lookup; an
-- aggregate id or a payload match uses an index when the table has a full one (btree on the
-- aggregate column, GIN on payload: docs/operations.md, "Find a message"), the unprocessed
-- messages of an ordered inbox are found through <name>_ordering_idx, and otherwise no more than
-- the first 100,000 rows of the table are looked at (a larger inbox may hold matches beyond them).
-- Runs with the caller's rights: whoever may read the inbox's table (operators, readers) may search.
CREATE OR REPLACE FUNCTION inbox.find_messages(p_inbox text, p_event_id text DEFAULT NULL,
    p_aggregate_id text DEFAULT NULL, p_payload_match jsonb DEFAULT NULL, p_limit integer DEFAULT 50)
RETURNS TABLE (event_id text, state text, event_type text, source text, aggregate_id text, payload jsonb,
               received_at timestamptz, processed_at timestamptz, next_attempt_at timestamptz, error text,
               retry_count integer, trace_id text, failing_since timestamptz, died_at timestamptz, attempts jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_table text := inbox.inbox_table(c);
    v_scan constant integer := 100000;
    v_where text[] := '{}';
    v_indexed boolean := false;
    v_query text;
    v_ids text[];
BEGIN
    PERFORM inbox.check_page_limit(p_limit);
    IF p_event_id IS NULL AND p_aggregate_id IS NULL AND p_payload_match IS NULL THEN
        RAISE EXCEPTION 'find_messages needs an event id, an aggregate id or a payload match'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF greatest(length(p_event_id), length(p_aggregate_id)) > 4096 THEN
        RAISE EXCEPTION 'an event id or aggregate id to find is at most 4096 characters, got %',
            greatest(length(p_event_id), length(p_aggregate_id)) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF jsonb_typeof(p_payload_match) IS DISTINCT FROM 'object' AND p_payload_match IS NOT NULL THEN
        RAISE EXCEPTION 'a payload match is a JSON object (payload @> match), got a JSON %', jsonb_typeof(p_payload_match)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_payload_match IS NOT NULL AND NOT c.managed THEN
        RAISE EXCEPTION 'inbox % tracks a table of its own: its payload cannot be searched', p_inbox
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_aggregate_id IS NOT NULL AND c.aggregate_column IS NULL THEN
        RAISE EXCEPTION 'inbox % maps no aggregate column', p_inbox USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_event_id IS NOT NULL THEN
        v_ids := ARRAY[p_event_id];
    ELSE
        IF p_aggregate_id IS NOT NULL THEN
            v_where := v_where || format('m.%I = $1::%s', c.aggregate_column,
                (SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                 WHERE a.attrelid = v_table::regclass AND a.attname = c.aggregate_column));
            v_indexed := inbox.has_full_index(v_table, c.aggregate_column, 'btree');
        END IF;
        IF p_payload_match IS NOT NULL THEN
            v_where := v_where || 'm.payload @> $2'::text;
            v_indexed := v_indexed OR inbox.has_full_index(v_table, 'payload', 'gin');
        END IF;
        v_query := format('SELECT m.%I::text AS id FROM %s m WHERE %s', c.id_column,
            CASE WHEN v_indexed THEN v_table ELSE format('(SELECT * FROM %s LIMIT %s)', v_table, v_scan) END,
            array_to_string(v_where, ' AND '));
        IF NOT v_indexed AND p_aggregate_id IS NOT NULL AND c.managed
           AND to_regclass(format('inbox.%I', p_inbox || '_ordering_idx')) IS NOT NULL THEN
            v_query := format('(SELECT m.event_id AS id FROM %s m WHERE %s AND m.processed_at IS NULL LIMIT $3) UNION (%s LIMIT $3)',
                v_table, array_to_string(v_where, ' AND '), v_query);
        END IF;
        EXECUTE format('SELECT array_agg(x.id) FROM (%s LIMIT $3) x', v_query)
            INTO v_ids USING p_aggregate_id, p_payload_match, p_limit;
    END IF;
    BEGIN
        RETURN QUERY SELECT x.* FROM unnest(v_ids) AS i(id)
            CROSS JOIN LATERAL inbox.inbox_message(p_inbox, i.id) x
            WHERE (p_aggregate_id IS NULL OR x.aggregate_id = p_aggregate_id)
              AND (p_payload_match IS NULL OR x.payload @> p_payload_match)
            ORDER BY x.received_at, x.event_id;
    EXCEPTION WHEN invalid_text_representation THEN
        RETURN;  -- an event id that is no value of a tracked table's id type: no such message
    END;
END;
$$;
