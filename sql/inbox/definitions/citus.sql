-- Scaling an inbox out on Citus (docs/scale-out.md): inbox.distribute_inbox turns a managed inbox
-- into a distributed table co-located with the application's table, and the shard functions let
-- workers claim shard by shard, each claim transaction on the one node that holds its shard.
--
-- Where things live on a Citus cluster:
--   coordinator only   the catalog (inbox_config and the settings tables), the worker registry and
--                      partition leases (inbox_workers, inbox_partition_leases), the operator log:
--                      plain local tables, so heartbeats, lease changes and catalog locks are
--                      single-node transactions on the coordinator, where they are taken.
--   every node         the inbox's shards, co-located with the application's shards, and the
--                      functions their triggers and the shard claim call (create_distributed_function
--                      copies them to every node, nodes added later included).
-- A lease no longer guards the claim transaction (the claim runs on another node than the lease):
-- it spreads the shards over the workers. What a claim takes is decided by its row locks, as for
-- workers that share a partition today, so a lease that moves during a claim costs overlap, never
-- a second delivery.
--
-- Nothing here runs without Citus: pg_dist_* are read only where the extension is installed.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION inbox.citus_installed()
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') $$;

-- Whether an inbox's table is a Citus distributed table (false without Citus).
CREATE OR REPLACE FUNCTION inbox.is_distributed(c inbox.inbox_config)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_result boolean;
BEGIN
    IF NOT inbox.citus_installed() OR to_regclass(inbox.inbox_table(c)) IS NULL THEN
        RETURN false;
    END IF;
    -- Dynamic: pg_dist_partition exists only with Citus.
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
        INTO v_result USING to_regclass(inbox.inbox_table(c));
    RETURN v_result;
END;
$$;

-- The conflict target of a managed inbox's key: event_id, or (aggregate_id, event_id) once
-- distributed (Citus needs the distribution column in every unique constraint). send_<name> uses
-- it for its ON CONFLICT.
CREATE OR REPLACE FUNCTION inbox.message_key(c inbox.inbox_config)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT CASE WHEN inbox.is_distributed(c) THEN 'aggregate_id, event_id' ELSE 'event_id' END $$;

-- Makes a managed inbox a Citus distributed table, distributed by aggregate_id and co-located
-- with p_colocate_with, the application's table its handlers write (itself distributed by a text
-- column already): a message and the rows its handler changes then live on one node. Run it on
-- the coordinator, once the inbox exists there; it is a no-op for an inbox distributed already.
-- What it changes, and why:
--   aggregate_id NOT NULL       the distribution column cannot be NULL: an inbox with messages
--                               without one is refused (23502), nothing changed
--   key (aggregate_id, event_id) unique constraints must hold the distribution column; an event
--                               id is then unique per aggregate (send_<name> follows)
--   aggregate_id's collation    the application's column's, which co-location requires
--   ordering                    an ordering on another aggregate column is refused: a head test
--                               must stay within one shard
-- Refused (0A000): a database without Citus, a tracked inbox (the application's table and its
-- side table inbox.<name>_retry_state, keyed by the message id alone, cannot follow a distribution
-- column), an inbox with a maximum payload size (its trigger is not copied to the shards).
CREATE OR REPLACE FUNCTION inbox.distribute_inbox(p_inbox text, colocate_with text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
DECLARE
    c inbox.inbox_config;
    v_table text;
    v_colocate regclass;
    v_column text;
    v_type text;
    v_collation text;
    v_nulls bigint;
    v_ordering text;
    v_function text;
    v_views text[] := ARRAY[p_inbox || '_pending', p_inbox || '_dlq', p_inbox || '_stats', 'next_' || p_inbox];
    v_grants text[];
BEGIN
    IF NOT inbox.citus_installed() THEN
        RAISE EXCEPTION 'distribute_inbox needs the Citus extension, which this database does not have'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Install Citus and run CREATE EXTENSION citus on the coordinator and every worker node (docs/scale-out.md).';
    END IF;
    PERFORM inbox.lock_catalog();
    c := inbox.inbox_config_of(p_inbox);
    v_table := inbox.inbox_table(c);
    IF NOT c.managed THEN
        RAISE EXCEPTION 'inbox % is a tracked table and cannot be distributed', quote_literal(p_inbox)
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'A tracked inbox keeps retries in inbox.' || p_inbox || '_retry_state, keyed by the message id alone; use a managed inbox (create_inbox) on Citus.';
    END IF;
    IF c.max_payload_bytes IS NOT NULL THEN
        RAISE EXCEPTION 'inbox % has a maximum payload size and cannot be distributed', quote_literal(p_inbox)
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Remove it first: UPDATE inbox.inbox_config SET max_payload_bytes = NULL, then inbox.rebuild_inbox_objects.';
    END IF;
    IF inbox.is_distributed(c) THEN
        RETURN;
    END IF;
    v_colocate := to_regclass(colocate_with);
    IF v_colocate IS NULL THEN
        RAISE EXCEPTION 'table % does not exist', coalesce(quote_literal(colocate_with), 'NULL')
            USING ERRCODE = 'undefined_table';
    END IF;
    EXECUTE 'SELECT column_to_column_name(p.logicalrelid, p.partkey) FROM pg_catalog.pg_dist_partition p
             WHERE p.logicalrelid = $1 AND p.partmethod = ''h'''
        INTO v_column USING v_colocate;
    IF v_column IS NULL THEN
        RAISE EXCEPTION 'table % is not a hash-distributed table', v_colocate
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Distribute the application''s table first: SELECT create_distributed_table(''' || v_colocate || ''', ''<aggregate column>'').';
    END IF;
    SELECT format_type(a.atttypid, NULL), CASE WHEN a.attcollation <> 0 THEN a.attcollation::regcollation::text END
      INTO v_type, v_collation
      FROM pg_attribute a WHERE a.attrelid = v_colocate AND a.attname = v_column;
    IF v_type NOT IN ('text', 'character varying') THEN
        RAISE EXCEPTION 'table % is distributed by % of type %; an inbox is distributed by its text aggregate id',
            v_colocate, quote_ident(v_column), v_type
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    SELECT o.aggregate_column INTO v_ordering FROM inbox.inbox_ordering_config o WHERE o.inbox_name = p_inbox;
    IF v_ordering IS NOT NULL AND v_ordering <> 'aggregate_id' THEN
        RAISE EXCEPTION 'inbox % is ordered by %, not by its distribution column aggregate_id', quote_literal(p_inbox), v_ordering
            USING ERRCODE = 'feature_not_supported';
    END IF;
    EXECUTE format('SELECT count(*) FROM %s WHERE aggregate_id IS NULL', v_table) INTO v_nulls;
    IF v_nulls > 0 THEN
        RAISE EXCEPTION 'inbox % has % messages without an aggregate id; a distributed inbox needs one on every message',
            quote_literal(p_inbox), v_nulls
            USING ERRCODE = 'not_null_violation',
                  HINT = 'Give them one (UPDATE ... SET aggregate_id) or delete them first.';
    END IF;

    IF v_collation IS DISTINCT FROM (SELECT a.attcollation::regcollation::text FROM pg_attribute a
                                     WHERE a.attrelid = v_table::regclass AND a.attname = 'aggregate_id') THEN
        -- The trigger (UPDATE OF) and the views name the column: dropped here, made again by
        -- rebuild_inbox_objects below, the privileges others held on the views given back.
        v_grants := inbox.relation_grants(v_views);
        PERFORM inbox.replace_view(c, v_view, NULL) FROM unnest(v_views) AS v_view;
        EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', p_inbox || '_derive_on_update', v_table);
        EXECUTE format('ALTER TABLE %s ALTER COLUMN aggregate_id TYPE text COLLATE %s', v_table, coalesce(v_collation, '"default"'));
    END IF;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN aggregate_id SET NOT NULL', v_table);
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I, ADD PRIMARY KEY (aggregate_id, event_id)', v_table,
        (SELECT k.conname FROM pg_constraint k WHERE k.conrelid = v_table::regclass AND k.contype = 'p'));

    -- The functions the shards' triggers call, and the shard functions below, on every node.
    FOREACH v_function IN ARRAY ARRAY[
            'inbox.inbox_bucket(text)',
            format('inbox.%I(text, text, text)', 'priority_of_' || p_inbox),
            format('inbox.%I()', 'derive_' || p_inbox),
            'inbox.refuse_payload_change()',
            'inbox.claim_shard(text, integer, integer, text)',
            'inbox.failure_history(jsonb, integer, timestamp with time zone, text)',
            'inbox.fail_in_shard(text, text, text, text, interval, boolean, integer, interval, interval)',
            'inbox.release_in_shard(text, text[], text[])'] LOOP
        EXECUTE 'SELECT create_distributed_function($1::regprocedure)' USING v_function;
    END LOOP;
    -- No notifications: a NOTIFY on a shard cannot take part in the two-phase commit of an insert
    -- that spans nodes (PREPARE refuses a transaction that notified), and nobody listening on the
    -- coordinator would hear it. Workers poll (create_notify_trigger leaves a distributed inbox alone).
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', p_inbox || '_notify', v_table);
    -- The triggers left compute the row's own columns or refuse a change: safe on shards.
    PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
    -- One connection per node: the function and view commands that follow (the rebuild) cannot
    -- run in a transaction that copied rows over parallel connections.
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    EXECUTE 'SELECT create_distributed_table($1::regclass, ''aggregate_id'', colocate_with => $2)'
        USING v_table, v_colocate::text;
    PERFORM inbox.rebuild_inbox_objects(p_inbox);  -- send_<name>'s conflict target
    PERFORM inbox.restore_grants(coalesce(v_grants, '{}'));
    PERFORM inbox.log_operator_action('distribute_inbox', p_inbox,
        jsonb_build_object('colocate_with', v_colocate::text), NULL);
END;
$$;

-- The shards of a distributed inbox, in hash order, and where they are now: partition_id is the
-- partition of the automatic mode that stands for the shard (worker_heartbeat with as many
-- partitions as shards), shard_table the table to claim from on node_name:node_port. Workers read
-- it again after every heartbeat: a rebalance moves shards between nodes.
CREATE OR REPLACE FUNCTION inbox.inbox_shards(p_inbox text)
RETURNS TABLE (partition_id integer, shard_id bigint, shard_table text, node_name text, node_port integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    IF NOT inbox.is_distributed(c) THEN
        RAISE EXCEPTION 'inbox % is not distributed', quote_literal(p_inbox)
            USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'inbox.distribute_inbox';
    END IF;
    RETURN QUERY EXECUTE $q$
        SELECT (row_number() OVER (ORDER BY s.shardminvalue::bigint) - 1)::integer, s.shardid,
               format('%I.%I', $2, $3 || '_' || s.shardid), p.nodename::text, p.nodeport::integer
        FROM pg_catalog.pg_dist_shard s
        JOIN pg_catalog.pg_dist_shard_placement p ON p.shardid = s.shardid
        WHERE s.logicalrelid = $1
        ORDER BY s.shardminvalue::bigint$q$
        USING to_regclass(inbox.inbox_table(c)), c.table_schema, c.table_name;
END;
$$;

-- The claim of one shard, run on the node that holds it, in the transaction the handler's writes
-- and the commit share: locks up to p_limit claimable messages (FOR UPDATE SKIP LOCKED), marks them
-- processed (processed_at = now(), as claim_<name>) and returns them in claim order (priority,
-- then arrival). With p_sequence_column (the inbox's ordering) only aggregate heads: messages with
-- no earlier unprocessed message of their aggregate, dead or backing off ones included, which the
-- row locks of concurrent claims keep exact (a head held by another claim still looks unprocessed
-- here, so what follows it waits). The whole aggregate is in this shard: the test never leaves it.
-- Self-contained (no other inbox function): it is copied to every node.
CREATE OR REPLACE FUNCTION inbox.claim_shard(p_shard text, p_limit integer, p_max_retries integer,
                                             p_sequence_column text DEFAULT NULL)
RETURNS TABLE (event_id text, event_type text, source text, aggregate_id text, payload text,
               received_at timestamptz, retry_count integer, trace_id text, seq bigint,
               priority integer, bucket integer)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_shard text;
    v_shard_id bigint;
    v_here boolean;
BEGIN
    IF p_sequence_column IS NOT NULL AND p_sequence_column !~ '^[a-z_][a-z0-9_]*$' THEN
        RAISE EXCEPTION 'invalid column name %', quote_literal(p_sequence_column) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_shard IS NULL OR p_shard !~ '^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*_[0-9]+$' THEN
        RAISE EXCEPTION 'invalid shard name %', coalesce(quote_literal(p_shard), 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    v_shard := format('%I.%I', split_part(p_shard, '.', 1), split_part(p_shard, '.', 2));
    v_shard_id := substring(p_shard FROM '_([0-9]+)$')::bigint;
    -- The lock Citus's own writes to the shard take (ShareLock on its metadata): a shard move
    -- blocks writes with ExclusiveLock before its last catch-up, so a claim never writes to a
    -- shard being switched over, and one that comes after finds it placed elsewhere and takes
    -- nothing (the worker reads inbox_shards again). A moved shard's old table lingers until
    -- Citus drops it: without this a claim could take a stale copy there.
    EXECUTE 'SELECT lock_shard_metadata(5, ARRAY[$1])' USING v_shard_id;
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_placement p
                            WHERE p.shardid = $1 AND p.groupid = (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g))'
        INTO v_here USING v_shard_id;
    IF NOT v_here THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format($q$
        WITH picked AS (
            SELECT m.ctid AS tid FROM %1$s m
            WHERE m.processed_at IS NULL AND m.retry_count < $2 AND m.next_attempt_at <= now() %2$s
            ORDER BY m.priority, m.seq
            LIMIT $1
            FOR UPDATE OF m SKIP LOCKED),
        claimed AS (
            UPDATE %1$s m SET processed_at = now() FROM picked
            WHERE m.ctid = picked.tid AND m.processed_at IS NULL
            RETURNING m.*)
        SELECT c.event_id, c.event_type, c.source, c.aggregate_id, c.payload::text, c.received_at,
               c.retry_count, c.trace_id, c.seq, c.priority, c.bucket::integer
        FROM claimed c ORDER BY c.priority, c.seq$q$,
        v_shard,
        CASE WHEN p_sequence_column IS NULL THEN '' ELSE format(
            'AND NOT EXISTS (SELECT 1 FROM %1$s e WHERE e.aggregate_id = m.aggregate_id AND e.processed_at IS NULL
                             AND (e.%2$I, e.seq) < (m.%2$I, m.seq))', v_shard, p_sequence_column) END)
        USING p_limit, p_max_retries;
END;
$$;

-- A failed attempt of a message claimed from a shard, in the claim's transaction on the shard's
-- node: retry_count + 1, the error (cut to 4,000 characters), the next attempt after p_delay or
-- the inbox's backoff (as inbox.retry_delay), a dead letter at once with p_dead or at p_max_retries,
-- and the failure history as inbox.mark_failed writes it: failing_since (kept from the first
-- failure), last_failed_at, died_at when this failure made it dead, the attempt appended to
-- attempts (inbox.failure_history, copied to every node with this function).
-- Returns 'retry' or 'dead', NULL when the message was processed by another transaction.
CREATE OR REPLACE FUNCTION inbox.fail_in_shard(p_shard text, p_aggregate_id text, p_event_id text, p_error text,
    p_delay interval, p_dead boolean, p_max_retries integer, p_backoff_base interval, p_backoff_max interval)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_result text;
BEGIN
    IF p_shard IS NULL OR p_shard !~ '^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$' THEN
        RAISE EXCEPTION 'invalid shard name %', coalesce(quote_literal(p_shard), 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    EXECUTE format($u$
        UPDATE %s m SET processed_at = NULL,
               retry_count = CASE WHEN $5 THEN $6 ELSE m.retry_count + 1 END,
               error = left($3, 4000),
               next_attempt_at = statement_timestamp() + coalesce($4,
                   least($8, $7 * power(2, least(m.retry_count, 30))) * (0.5 + random() * 0.5)),
               failing_since = coalesce(m.failing_since, statement_timestamp()),
               last_failed_at = statement_timestamp(),
               died_at = CASE WHEN $5 OR m.retry_count + 1 >= $6 THEN statement_timestamp() END,
               attempts = inbox.failure_history(m.attempts, m.retry_count + 1, statement_timestamp(), $3)
        WHERE m.aggregate_id = $1 AND m.event_id = $2 AND m.retry_count < $6
          AND (m.processed_at IS NULL OR m.processed_at = now())
        RETURNING CASE WHEN m.retry_count >= $6 THEN 'dead' ELSE 'retry' END$u$,
        format('%I.%I', split_part(p_shard, '.', 1), split_part(p_shard, '.', 2)))
        INTO v_result
        USING p_aggregate_id, p_event_id, p_error, p_delay, coalesce(p_dead, false), p_max_retries,
              p_backoff_base, p_backoff_max;
    RETURN v_result;
END;
$$;

-- Gives messages claimed from a shard back uncharged, in the claim's transaction on the shard's
-- node (as inbox.release_claimed does on a single server): processed_at back to NULL for the
-- messages this transaction claimed (processed_at = now()), nothing else changed. Used when a
-- batch passed its processing timeout, for the messages its handler never got to. Returns how many
-- were given back.
CREATE OR REPLACE FUNCTION inbox.release_in_shard(p_shard text, p_aggregate_ids text[], p_event_ids text[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_released integer;
BEGIN
    IF p_shard IS NULL OR p_shard !~ '^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$' THEN
        RAISE EXCEPTION 'invalid shard name %', coalesce(quote_literal(p_shard), 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    EXECUTE format($u$
        UPDATE %s m SET processed_at = NULL
        FROM unnest($1, $2) AS r(aggregate_id, event_id)
        WHERE m.aggregate_id = r.aggregate_id AND m.event_id = r.event_id AND m.processed_at = now()$u$,
        format('%I.%I', split_part(p_shard, '.', 1), split_part(p_shard, '.', 2)))
        USING p_aggregate_ids, p_event_ids;
    GET DIAGNOSTICS v_released = ROW_COUNT;
    RETURN v_released;
END;
$$;

-- An inbox distributed before fail_in_shard wrote the failure history, or before release_in_shard
-- existed, has those functions on the coordinator only (Citus copies a new function to the nodes
-- by itself under its default citus.create_object_propagation, but not whatever that setting):
-- copied to every node here, as distribute_inbox does, once Citus copies fail_in_shard.
DO $$
DECLARE
    v_function text;
BEGIN
    IF inbox.citus_installed() THEN
        FOREACH v_function IN ARRAY ARRAY[
                'inbox.failure_history(jsonb, integer, timestamp with time zone, text)',
                'inbox.release_in_shard(text, text[], text[])'] LOOP
            EXECUTE $q$
                SELECT create_distributed_function($1::regprocedure)
                WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_dist_object o
                              WHERE o.classid = 'pg_catalog.pg_proc'::regclass
                                AND o.objid = 'inbox.fail_in_shard(text, text, text, text, interval, boolean, integer, interval, interval)'::regprocedure)$q$
                USING v_function;
        END LOOP;
    END IF;
END;
$$;
