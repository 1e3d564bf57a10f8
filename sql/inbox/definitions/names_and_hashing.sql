-- Name validation, catalog lookup and the partition hash.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- Inbox names become table, view, index and function names, so they are held to a strict
-- pattern short enough that every derived name ("next_<name>", "<name>_pending_claim_idx",
-- ...) stays within PostgreSQL's 63-byte identifier limit.
CREATE OR REPLACE FUNCTION inbox.check_inbox_name(p_name text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_name IS NULL OR p_name !~ '^[a-z][a-z0-9_]{0,39}$' THEN
        RAISE EXCEPTION 'invalid inbox name %: use 1 to 40 characters a-z, 0-9 and _, starting with a letter',
            coalesce(quote_literal(p_name), 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN p_name;
END;
$$;

-- Column names given by users (tracking, ordering, priority).
CREATE OR REPLACE FUNCTION inbox.check_column_name(p_column text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_column IS NULL OR p_column !~ '^[A-Za-z_][A-Za-z0-9_]{0,62}$' THEN
        RAISE EXCEPTION 'invalid column name %', coalesce(quote_literal(p_column), 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN p_column;
END;
$$;

-- The catalog row of an inbox, or a clear error.
CREATE OR REPLACE FUNCTION inbox.inbox_config_of(p_inbox text)
RETURNS inbox.inbox_config
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_config inbox.inbox_config;
BEGIN
    SELECT * INTO v_config FROM inbox.inbox_config WHERE inbox_name = p_inbox;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'inbox % does not exist', coalesce(quote_literal(p_inbox), 'NULL')
            USING ERRCODE = 'undefined_object';
    END IF;
    RETURN v_config;
END;
$$;

-- The catalog row of a managed inbox, for the functions that need the managed columns (retry
-- count, next attempt, bucket); p_function names the caller in the error on a tracked table.
CREATE OR REPLACE FUNCTION inbox.managed_config_of(p_inbox text, p_function text)
RETURNS inbox.inbox_config
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_config inbox.inbox_config := inbox.inbox_config_of(p_inbox);
BEGIN
    IF NOT v_config.managed THEN
        RAISE EXCEPTION '% needs a managed inbox; % is tracked', p_function, quote_literal(p_inbox)
            USING ERRCODE = 'feature_not_supported';
    END IF;
    RETURN v_config;
END;
$$;

-- The fully quoted name of the table that holds an inbox's messages.
CREATE OR REPLACE FUNCTION inbox.inbox_table(p_config inbox.inbox_config)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT format('%I.%I', p_config.table_schema, p_config.table_name) $$;

-- The side table of a tracked inbox, inbox.<name>_retry_state: the retry count, last error and
-- next attempt of its messages, keyed by message id, where the user's table has no such columns
-- (it is never altered). Created by rebuild_inbox_objects, dropped by drop_inbox.
CREATE OR REPLACE FUNCTION inbox.retry_state_table(p_config inbox.inbox_config)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT format('inbox.%I', p_config.inbox_name || '_retry_state') $$;

-- Partitioning: every aggregate id hashes to one of 1024 fixed buckets, and buckets are
-- assigned to workers by rendezvous (highest random weight) hashing. A NULL aggregate id hashes
-- like the empty string. Growing the worker count from N to N+1 moves only the buckets the new
-- worker wins: about 1/(N+1) of them. Java has both steps too (dev.pginbox.inbox.Partitioning).
--
-- The bucket is the low 10 bits of hashtext, PostgreSQL's own hash of a text's bytes (Bob
-- Jenkins' lookup3; hash indexes are built on it, hash partitions on its 64-bit twin, and both
-- survive pg_upgrade, so PostgreSQL keeps it stable across versions). It was md5 until
-- 2026-11-27: send_<name> and the trigger derive_<name> compute the bucket of every message with
-- an aggregate id, and md5 (a hash context set up per call) took ~18 % of an insert's server
-- time, hashtext 2-4 % (docs/performance.md, "Produce").
-- hashtext reads the bytes in the machine's order, so a big-endian server (s390x) gives other
-- buckets than Java's Partitioning.bucketOf: harmless, as the server computes every bucket a
-- claim compares, and the order of an aggregate's messages rests on the claims' head test, never
-- on buckets. For the same reason messages stored with md5 buckets before the change keep them.
-- The function must stay inlinable: no SET search_path (that would stop inlining). Its
-- SQL-standard body is parsed once, at install, under the install's pinned search_path, and names
-- every function, operator, type and collation by schema. A NULL id's bucket is the constant 621
-- (hashtext('') & 1023); SqlPartitionFunctionTest checks it and that the function is inlined.
CREATE OR REPLACE FUNCTION inbox.inbox_bucket(p_aggregate_id text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN p_aggregate_id IS NULL THEN 621
            ELSE pg_catalog.hashtext(p_aggregate_id COLLATE pg_catalog."C") OPERATOR(pg_catalog.&) 1023 END;

-- The worker (0 .. p_total_workers-1) that owns a bucket.
CREATE OR REPLACE FUNCTION inbox.inbox_bucket_owner(p_bucket integer, p_total_workers integer)
RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_best_worker integer := 0;
    v_best_weight bigint := -1;
    v_weight bigint;
BEGIN
    IF p_total_workers IS NULL OR p_total_workers < 1 THEN
        RAISE EXCEPTION 'total workers must be at least 1, got %', p_total_workers
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_bucket IS NULL OR p_bucket < 0 OR p_bucket > 1023 THEN
        RAISE EXCEPTION 'bucket must be in 0..1023, got %', p_bucket
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR v_worker IN 0 .. p_total_workers - 1 LOOP
        -- Unsigned 32-bit weight; the strict '>' keeps the lowest worker id on a tie.
        v_weight := ('x' || substr(md5(p_bucket || ':' || v_worker), 1, 8))::bit(32)::bigint;
        IF v_weight > v_best_weight THEN
            v_best_weight := v_weight;
            v_best_worker := v_worker;
        END IF;
    END LOOP;
    RETURN v_best_worker;
END;
$$;

-- The buckets a worker owns, for claim queries (bucket = ANY(...)).
CREATE OR REPLACE FUNCTION inbox.inbox_partition_buckets(p_worker_id integer, p_total_workers integer)
RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(b ORDER BY b), '{}')
    FROM generate_series(0, 1023) AS b
    WHERE inbox.inbox_bucket_owner(b, p_total_workers) = p_worker_id
$$;

-- A set of buckets as a 1,024-bit mask (bit b, counted from the left, = bucket b); NULL for NULL
-- (every bucket). Claims test get_bit(mask, bucket), constant time per candidate row, where
-- bucket = ANY(array) searched the array linearly: ~1.1 us per row for 512 buckets.
-- plpgsql, not sql: every claim computes it in its own transaction, and a SQL function (not
-- inlinable: it has a SET clause and a subquery) parses and plans its body again in each
-- transaction, ~100 us, a tenth of a claim of 10 (docs/performance.md, "Claim"); plpgsql keeps the
-- statement's plan for the session.
CREATE OR REPLACE FUNCTION inbox.inbox_bucket_mask(p_buckets integer[])
RETURNS varbit
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_buckets IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN (SELECT coalesce(bit_or(B'1'::bit(1024) >> b), B'0'::bit(1024))::varbit
            FROM unnest(p_buckets) AS b WHERE b BETWEEN 0 AND 1023);
END;
$$;

-- seeds/004 form, with the inbox name first as documented.
CREATE OR REPLACE FUNCTION inbox.inbox_is_my_partition(
    p_inbox text, p_aggregate_id text, p_worker_id integer, p_total_workers integer)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM inbox.inbox_config_of(p_inbox);
    IF p_worker_id IS NULL OR p_worker_id < 0 OR p_worker_id >= p_total_workers THEN
        RAISE EXCEPTION 'worker id must be in 0..%, got %', p_total_workers - 1, p_worker_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN inbox.inbox_bucket_owner(inbox.inbox_bucket(p_aggregate_id), p_total_workers) = p_worker_id;
END;
$$;

-- The SQL type of an inbox's id column, for casting bound event ids ($1::<type>) so that the
-- primary key index of a tracked table with, say, a uuid id is still used.
CREATE OR REPLACE FUNCTION inbox.id_type(c inbox.inbox_config)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN c.managed THEN 'text' ELSE
        (SELECT format_type(a.atttypid, NULL) FROM pg_attribute a
         WHERE a.attrelid = inbox.inbox_table(c)::regclass AND a.attname = c.id_column
           AND a.attnum > 0 AND NOT a.attisdropped) END
$$;

-- Serialises catalog changes (create, track, drop) so that two sessions creating the same inbox
-- get a clear "already exists" instead of a unique violation half way through. A lock on
-- inbox.catalog_lock, not an advisory lock: only its owner can lock it, where any role that can
-- connect could hold an advisory key forever.
CREATE OR REPLACE FUNCTION inbox.lock_catalog()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    LOCK TABLE inbox.catalog_lock IN EXCLUSIVE MODE;
END;
$$;

-- Every name an inbox derives in schema inbox, whatever its kind and the features it enables
-- later: its table, views and indexes (one namespace), and its functions.
CREATE OR REPLACE FUNCTION inbox.derived_relation_names(p_name text)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY[p_name, p_name || '_pending', p_name || '_dlq', p_name || '_stats', 'next_' || p_name,
                 p_name || '_claim_idx', p_name || '_dlq_idx', p_name || '_processed_brin',
                 p_name || '_ordering_idx', p_name || '_ordering_dead_idx', p_name || '_retry_state', p_name || '_retry_state_pkey',
                 p_name || '_failed_idx', p_name || '_pkey']
$$;

CREATE OR REPLACE FUNCTION inbox.derived_function_names(p_name text)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT ARRAY['claim_' || p_name, 'priority_of_' || p_name, 'send_' || p_name, 'derive_' || p_name] $$;

-- An inbox reserves all its derived names from its creation on, so no two inboxes can ever want
-- the same object (inboxes "a" and "next_a" both want inbox.next_a; "x_pending" and "next_x" both
-- want inbox.next_x_pending). Raises 42710 when another inbox reserves one of p_name's names.
-- create_inbox, enable_inbox_tracking and the enable_* functions check it; an install made before
-- the rule may hold such pairs, and then only the enable_* calls are refused (the upgrade and
-- drop_inbox leave the other inbox's objects alone instead of failing).
CREATE OR REPLACE FUNCTION inbox.check_reserved_names(p_name text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_other text;
    v_object text;
BEGIN
    SELECT c.inbox_name, n INTO v_other, v_object
    FROM inbox.inbox_config c, unnest(inbox.derived_relation_names(c.inbox_name)) AS n
    WHERE c.inbox_name <> p_name AND n = ANY (inbox.derived_relation_names(p_name))
    ORDER BY c.inbox_name, n
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'inbox name % collides with inbox %: both derive inbox.%', quote_literal(p_name),
            quote_literal(v_other), v_object
            USING ERRCODE = 'duplicate_object',
                  HINT = 'an inbox <name> reserves <name>, <name>_pending, <name>_dlq, <name>_stats, next_<name> '
                         'and <name>_claim_idx, _dlq_idx, _processed_brin, _ordering_idx, _ordering_dead_idx, _retry_state, _retry_state_pkey, _failed_idx, _pkey: '
                         'choose another name '
                         '(two inboxes made before names were reserved: drop one of them)';
    END IF;
END;
$$;

-- The names a new inbox derives must be free: reserved by no other inbox (42710), and taken by no
-- table, view, index or function of schema inbox that is not an inbox's (42P07; 42710 for a function): such an
-- object is never reused or replaced. The inbox's own table name is checked by the caller
-- (create_inbox; a tracked table lives where it is).
CREATE OR REPLACE FUNCTION inbox.check_free_names(p_name text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_object text;
BEGIN
    PERFORM inbox.check_reserved_names(p_name);
    FOREACH v_object IN ARRAY (inbox.derived_relation_names(p_name))[2:] LOOP
        IF to_regclass(format('inbox.%I', v_object)) IS NOT NULL THEN
            RAISE EXCEPTION 'inbox.% already exists and does not belong to an inbox', v_object
                USING ERRCODE = 'duplicate_table';
        END IF;
    END LOOP;
    FOREACH v_object IN ARRAY inbox.derived_function_names(p_name) LOOP
        IF EXISTS (SELECT 1 FROM pg_proc f WHERE f.pronamespace = 'inbox'::regnamespace AND f.proname = v_object) THEN
            RAISE EXCEPTION 'function inbox.% already exists and does not belong to an inbox', v_object
                USING ERRCODE = 'duplicate_object';
        END IF;
    END LOOP;
END;
$$;

-- Whether relation p_object (in schema inbox) is the inbox's own: its table, an index on it, a
-- view that reads it, or a tracked inbox's side table. An install made before names were reserved may hold two inboxes that both
-- derive a name; the generators and drop_inbox then leave the other inbox's object alone.
CREATE OR REPLACE FUNCTION inbox.belongs_to_inbox(c inbox.inbox_config, p_object text)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE r.relkind
        WHEN 'i' THEN EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = r.oid AND i.indrelid = t.oid)
        WHEN 'v' THEN EXISTS (SELECT 1 FROM pg_rewrite w JOIN pg_depend d
                                ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
                              WHERE w.ev_class = r.oid AND d.refclassid = 'pg_class'::regclass
                                AND d.refobjid = t.oid)
        -- A tracked inbox's side table, unless it is another inbox's table.
        ELSE r.oid = t.oid OR (NOT c.managed AND p_object = c.inbox_name || '_retry_state'
                               AND NOT EXISTS (SELECT 1 FROM inbox.inbox_config k
                                               WHERE k.table_schema = 'inbox' AND k.table_name = p_object)) END
    FROM pg_class r, (SELECT to_regclass(inbox.inbox_table(c)) AS oid) t
    WHERE r.oid = to_regclass(format('inbox.%I', p_object))
$$;
