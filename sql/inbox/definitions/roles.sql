-- The role model (docs/security.md): four group roles and the privileges each kind of role gets on
-- the schema and on every inbox. Functions run with the caller's rights, so what a role may do is
-- decided by the table and column privileges granted here.
--
--   inbox_producer  send: INSERT of the message columns only, SELECT of event_id (ON CONFLICT)
--   inbox_consumer  claim, mark, run a worker (partitions, leases, retention)
--   inbox_operator  health, status, dead letters, replay, purge
--   inbox_reader    health, status, views
--
-- The group roles get every inbox; inbox.grant_inbox gives one role one kind on one inbox. Both are
-- re-applied whenever an inbox's derived objects are rebuilt (create, enable_*, re-install).

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- The group roles, created when missing. Roles belong to the cluster: another database's install
-- may create them at the same moment, hence the duplicate handlers.
DO $$
DECLARE
    v_role text;
    v_may_create boolean;
BEGIN
    SELECT r.rolsuper OR r.rolcreaterole INTO v_may_create
    FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER;
    FOREACH v_role IN ARRAY ARRAY['inbox_producer', 'inbox_consumer', 'inbox_operator', 'inbox_reader'] LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role);
        IF NOT v_may_create THEN
            -- A WARNING, not a NOTICE: install.sql hides notices, and the operator must learn why
            -- the role is missing.
            RAISE WARNING 'inbox: role % not created: % may not create roles (create it with CREATE ROLE % NOLOGIN and re-run the install)',
                v_role, current_user, v_role;
            CONTINUE;
        END IF;
        BEGIN
            EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', v_role);
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;  -- created meanwhile by a concurrent install in another database
        END;
    END LOOP;
END;
$$;

-- The group role of a kind.
CREATE OR REPLACE FUNCTION inbox.group_role(p_kind text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT 'inbox_' || p_kind $$;

CREATE OR REPLACE FUNCTION inbox.check_grant_kind(p_kind text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_kind IS NULL OR p_kind NOT IN ('producer', 'consumer', 'operator', 'reader') THEN
        RAISE EXCEPTION 'invalid kind %: use producer, consumer, operator or reader', coalesce(quote_literal(p_kind), 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN p_kind;
END;
$$;

-- The schema-wide privileges of a kind: the schema, the catalog, and for consumers the
-- coordination tables of the workers (rows of other inboxes stay out of reach: see the policies
-- below).
CREATE OR REPLACE FUNCTION inbox.grant_schema_privileges(p_role text, p_kind text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_role text := quote_ident(p_role);
BEGIN
    PERFORM inbox.check_grant_kind(p_kind);
    EXECUTE format('GRANT USAGE ON SCHEMA inbox TO %s', v_role);
    -- Every API call starts by reading the catalog row of its inbox; nothing in it is secret.
    EXECUTE format('GRANT SELECT ON inbox.inbox_config TO %s', v_role);
    IF p_kind = 'producer' THEN
        RETURN;
    END IF;
    EXECUTE format('GRANT SELECT ON inbox.inbox_ordering_config, inbox.inbox_priority_config TO %s', v_role);
    -- Who holds the xmin horizon (inbox_health): sessions' roles, applications and states, which
    -- PostgreSQL otherwise shows only to pg_read_all_stats; producers do not see them.
    EXECUTE format('GRANT EXECUTE ON FUNCTION inbox.xmin_horizon(integer) TO %s', v_role);
    IF p_kind = 'consumer' THEN
        -- inbox_worker_registry: every worker announces itself (inbox.worker_announce).
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON inbox.inbox_workers, inbox.inbox_partition_leases, inbox.inbox_worker_registry TO %s', v_role);
    ELSE
        EXECUTE format('GRANT SELECT ON inbox.inbox_workers, inbox.inbox_partition_leases, inbox.inbox_worker_registry TO %s', v_role);
        -- The audit trail is read by operators and readers; it is written only through the
        -- SECURITY DEFINER inbox.log_operator_action.
        EXECUTE format('GRANT SELECT ON inbox.operator_log TO %s', v_role);
    END IF;
    IF p_kind IN ('consumer', 'operator') THEN
        -- Retention records how far it stripped payloads; locking the catalog row (which needs an
        -- UPDATE privilege) elects one retention sweep per inbox (inbox.try_purge_inbox). Row
        -- security limits both to the inboxes whose table the role may update (below).
        EXECUTE format('GRANT UPDATE (stripped_until) ON inbox.inbox_config TO %s', v_role);
    END IF;
END;
$$;

-- The privileges of a kind on one inbox's table and views. Column privileges decide what a role
-- may write: a producer inserts the message columns and nothing else (the server sets received_at,
-- retry_count, next_attempt_at, seq, priority and bucket; processed_at and error stay NULL), and
-- reads only event_id (which ON CONFLICT (event_id) needs), never a payload.
CREATE OR REPLACE FUNCTION inbox.grant_inbox_privileges(p_inbox text, p_role text, p_kind text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_table text := inbox.inbox_table(c);
    v_role text := quote_ident(p_role);
    v_marks text;  -- the columns that record an outcome
    v_view text;
BEGIN
    PERFORM inbox.check_grant_kind(p_kind);
    v_marks := array_to_string(ARRAY(SELECT quote_ident(x) FROM unnest(ARRAY[
        c.processed_at_column, c.retry_count_column, c.error_column]
        || CASE WHEN c.managed THEN ARRAY['next_attempt_at', 'failing_since', 'last_failed_at', 'died_at', 'attempts']
                ELSE '{}'::text[] END) AS x WHERE x IS NOT NULL), ', ');
    IF p_kind = 'producer' THEN
        -- A tracked table belongs to the application, whose writers have their own privileges.
        IF c.managed THEN
            EXECUTE format('GRANT INSERT (event_id, event_type, source, aggregate_id, payload, trace_id), '
                           'SELECT (event_id) ON %s TO %s', v_table, v_role);
            EXECUTE format('GRANT EXECUTE ON FUNCTION inbox.%I(text[], text[], text[], text[], jsonb[], text[]) TO %s',
                           'send_' || p_inbox, v_role);
        END IF;
        RETURN;
    END IF;

    EXECUTE format('GRANT SELECT ON %s TO %s', v_table, v_role);
    IF inbox.arrival_sequence(c) IS NOT NULL THEN
        -- A claim reads the last seq (or arrival value of a tracked table) taken to move its claim
        -- floors (inbox.advance_claim_floors), and health its own (inbox.operator_levels_sql);
        -- SELECT on a sequence reads it and takes no value.
        EXECUTE format('GRANT SELECT ON SEQUENCE %s TO %s', inbox.arrival_sequence(c), v_role);
    END IF;
    IF p_kind = 'consumer' OR p_kind = 'operator' THEN
        EXECUTE format('GRANT UPDATE (%s) ON %s TO %s', v_marks, v_table, v_role);
        IF c.retention_enabled THEN
            -- Retention deletes old rows and (with a dedup window) strips their payload first.
            EXECUTE format('GRANT DELETE ON %s TO %s', v_table, v_role);
            IF c.managed THEN
                EXECUTE format('GRANT UPDATE (payload) ON %s TO %s', v_table, v_role);
            END IF;
        END IF;
    END IF;
    IF NOT c.managed AND to_regclass(inbox.retry_state_table(c)) IS NOT NULL THEN
        -- The side table of retry counts, errors and next attempts: consumers record failures
        -- (insert or update), operators replay (update), retention removes stale rows (delete);
        -- readers count dead letters through it.
        EXECUTE format('GRANT SELECT%s ON %s TO %s',
            CASE WHEN p_kind IN ('consumer', 'operator') THEN ', INSERT, UPDATE, DELETE' ELSE '' END,
            inbox.retry_state_table(c), v_role);
    END IF;
    IF p_kind = 'operator' OR p_kind = 'reader' THEN
        FOREACH v_view IN ARRAY ARRAY[p_inbox || '_pending', p_inbox || '_dlq', p_inbox || '_stats', 'next_' || p_inbox] LOOP
            IF to_regclass(format('inbox.%I', v_view)) IS NOT NULL THEN
                EXECUTE format('GRANT SELECT ON inbox.%I TO %s', v_view, v_role);
            END IF;
        END LOOP;
    END IF;
END;
$$;

-- The batch send of a managed inbox, inbox.send_<name>(event ids, types, sources, aggregate ids,
-- payloads, trace ids): one INSERT of the arrays in event id order (two concurrent batches sharing
-- ids in different orders would otherwise deadlock), whose arrival order (seq) still follows the
-- arrays: an aggregate's events sent in one call are handed out in the order given. Setting seq
-- explicitly is the owner's right, not a producer's (a producer choosing seq could jump the
-- queue), so the function runs as its owner (SECURITY DEFINER) and takes no seq: EXECUTE on it is
-- what the producers of the inbox are granted. It inserts the six message columns, like a
-- producer's own INSERT, and computes priority and bucket as the trigger <name>_derive would
-- (inbox.create_derive_triggers), in a plan kept for the session instead of a trigger call per
-- row. Returns the number inserted. The arrays must be equally long (a
-- NULL array stands for all NULL); otherwise invalid_parameter_value (22023), nothing inserted.
-- Duplicates are ignored, but a batch is first tried as a plain INSERT, in a subtransaction: ON
-- CONFLICT DO NOTHING probes the primary key before every row, inserts it speculatively and
-- confirms it with a WAL record of its own, about 15% of the server's work per row and 48 WAL
-- bytes (docs/performance.md, "Produce"), paid by every batch although duplicates are rare. A
-- batch with any duplicate (an id already stored, committed by a concurrent batch, or twice in the
-- arrays) fails that INSERT with unique_violation, and is then inserted again with ON CONFLICT DO
-- NOTHING, which keeps the first occurrence. Another unique index's violation fails both.
-- The arrival order comes from one identity value per element, drawn in the arrays' order below a
-- fence (OFFSET 0) that the sort by event id cannot move them past: the smallest goes to the first
-- element. A retry draws new ones (a gap in seq, as a rolled-back insert leaves). Drawing them in a
-- query of their own first cost ~5 % of a batch of 100 (docs/performance.md, "Produce").
CREATE OR REPLACE FUNCTION inbox.create_send_function(p_inbox text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_function text := format('inbox.%I', 'send_' || p_inbox);
    v_insert text;
BEGIN
    IF NOT c.managed THEN
        RETURN;
    END IF;
    v_insert := inbox.sql_template($i$
                INSERT INTO {{table}} (event_id, event_type, source, aggregate_id, payload, trace_id, seq,
                                  priority, bucket)
                OVERRIDING SYSTEM VALUE
                SELECT m.event_id, m.event_type, m.source, m.aggregate_id, m.payload, m.trace_id, m.seq,
                       {{priority_function}}(m.event_type, m.source, m.aggregate_id), inbox.inbox_bucket(m.aggregate_id)
                FROM (SELECT u.*, nextval({{seq_sequence}}::regclass) AS seq
                      FROM unnest(p_event_ids, p_event_types, p_sources, p_aggregate_ids, p_payloads, p_trace_ids)
                          WITH ORDINALITY AS u (event_id, event_type, source, aggregate_id, payload, trace_id, position)
                      OFFSET 0) m  -- a fence: nextval runs here, in the arrays' order, not after the sort
                ORDER BY m.event_id COLLATE "C", m.position$i$, jsonb_build_object(
        'table', inbox.inbox_table(c),
        'priority_function', format('inbox.%I', 'priority_of_' || p_inbox),
        'seq_sequence', format('%L', pg_get_serial_sequence(inbox.inbox_table(c), 'seq'))));
    EXECUTE inbox.sql_template($f$
        CREATE OR REPLACE FUNCTION {{function}}(p_event_ids text[], p_event_types text[], p_sources text[],
                                        p_aggregate_ids text[], p_payloads jsonb[], p_trace_ids text[])
        RETURNS integer
        LANGUAGE plpgsql
        SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        AS $body$
        DECLARE
            v_n integer := cardinality(p_event_ids);
            v_count integer;
        BEGIN
            -- unnest pads shorter arrays with NULLs: a payload lost silently. NULL stands for
            -- all NULL.
            IF (p_event_types IS NOT NULL AND cardinality(p_event_types) IS DISTINCT FROM v_n)
               OR (p_sources IS NOT NULL AND cardinality(p_sources) IS DISTINCT FROM v_n)
               OR (p_aggregate_ids IS NOT NULL AND cardinality(p_aggregate_ids) IS DISTINCT FROM v_n)
               OR (p_payloads IS NOT NULL AND cardinality(p_payloads) IS DISTINCT FROM v_n)
               OR (p_trace_ids IS NOT NULL AND cardinality(p_trace_ids) IS DISTINCT FROM v_n) THEN
                RAISE EXCEPTION 'a batch needs one element per event id in every array: % event ids, % types, % sources, % aggregate ids, % payloads, % trace ids',
                    coalesce(v_n, 0), cardinality(p_event_types), cardinality(p_sources),
                    cardinality(p_aggregate_ids), cardinality(p_payloads), cardinality(p_trace_ids)
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            IF '' = ANY (p_event_ids) THEN
                RAISE EXCEPTION 'an event id must not be empty (element %)', array_position(p_event_ids, '')
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
            BEGIN
                {{first_insert}};
                {{first_count}};
            EXCEPTION WHEN unique_violation THEN
                -- A duplicate: this time each row's key is probed first (see above).
                {{insert}}
                ON CONFLICT ({{key}}) DO NOTHING;
                GET DIAGNOSTICS v_count = ROW_COUNT;
            END;
            RETURN v_count;
        END;
        $body$
        $f$, jsonb_build_object('function', v_function, 'insert', v_insert, 'key', inbox.message_key(c),
             -- Citus reports a duplicate in an INSERT ... SELECT as an internal error (XX000), not
             -- unique_violation: a distributed inbox probes the key at once.
             -- Its row count is then the rows it selected, duplicates included: the rows it
             -- inserted are counted from RETURNING.
             'first_insert', CASE WHEN inbox.is_distributed(c)
                                  THEN 'WITH inserted AS (' || v_insert || ' ON CONFLICT (' || inbox.message_key(c)
                                       || ') DO NOTHING RETURNING 1) SELECT count(*) INTO v_count FROM inserted'
                                  ELSE v_insert END,
             'first_count', CASE WHEN inbox.is_distributed(c) THEN 'NULL'
                                 ELSE 'GET DIAGNOSTICS v_count = ROW_COUNT' END));
    EXECUTE format('REVOKE ALL ON FUNCTION %s(text[], text[], text[], text[], jsonb[], text[]) FROM PUBLIC', v_function);
END;
$$;

-- (Re)creates the send function and grants what the group roles and the roles of inbox.grant_inbox
-- hold on an inbox. Called at the end of every rebuild of its derived objects, so new views get
-- them and nothing is lost on re-install.
-- A role that no longer exists is skipped with a warning.
CREATE OR REPLACE FUNCTION inbox.apply_inbox_grants(p_inbox text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_role text;
    v_kind text;
BEGIN
    PERFORM inbox.create_send_function(p_inbox);
    FOR v_role, v_kind IN
        SELECT inbox.group_role(k), k FROM unnest(ARRAY['producer', 'consumer', 'operator', 'reader']) AS k
        UNION ALL
        SELECT g.role_name, g.kind FROM inbox.inbox_grants g WHERE g.inbox_name = p_inbox
    LOOP
        IF to_regrole(quote_ident(v_role)) IS NULL THEN
            IF v_role <> inbox.group_role(v_kind) THEN
                RAISE WARNING 'inbox %: role % of inbox.inbox_grants does not exist; skipped', p_inbox, v_role;
            END IF;
            CONTINUE;
        END IF;
        PERFORM inbox.grant_inbox_privileges(p_inbox, v_role, v_kind);
    END LOOP;
END;
$$;

-- Gives p_role one kind of access (producer, consumer, operator, reader) to one inbox, now and
-- after every rebuild and re-install. Idempotent.
CREATE OR REPLACE FUNCTION inbox.grant_inbox(p_inbox text, p_role text, p_kind text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM inbox.inbox_config_of(p_inbox);
    PERFORM inbox.check_grant_kind(p_kind);
    IF p_role IS NULL OR to_regrole(quote_ident(p_role)) IS NULL THEN
        RAISE EXCEPTION 'role % does not exist', coalesce(quote_literal(p_role), 'NULL')
            USING ERRCODE = 'undefined_object';
    END IF;
    INSERT INTO inbox.inbox_grants (inbox_name, role_name, kind) VALUES (p_inbox, p_role, p_kind)
    ON CONFLICT DO NOTHING;
    PERFORM inbox.grant_schema_privileges(p_role, p_kind);
    PERFORM inbox.grant_inbox_privileges(p_inbox, p_role, p_kind);
END;
$$;

-- Takes back what inbox.grant_inbox gave: p_role's privileges on the inbox's table and views (the
-- other kinds it still holds on the inbox are granted again). The schema-wide privileges stay, as
-- the role may hold other inboxes. Returns false when the grant was not recorded.
CREATE OR REPLACE FUNCTION inbox.revoke_inbox(p_inbox text, p_role text, p_kind text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c inbox.inbox_config := inbox.inbox_config_of(p_inbox);
    v_view text;
    v_kind text;
BEGIN
    PERFORM inbox.check_grant_kind(p_kind);
    DELETE FROM inbox.inbox_grants WHERE inbox_name = p_inbox AND role_name = p_role AND kind = p_kind;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF to_regrole(quote_ident(p_role)) IS NULL THEN
        RETURN true;
    END IF;
    -- REVOKE ALL on a table also revokes its column privileges.
    EXECUTE format('REVOKE ALL ON %s FROM %I', inbox.inbox_table(c), p_role);
    IF NOT c.managed AND to_regclass(inbox.retry_state_table(c)) IS NOT NULL THEN
        EXECUTE format('REVOKE ALL ON %s FROM %I', inbox.retry_state_table(c), p_role);
    END IF;
    IF c.managed THEN
        EXECUTE format('REVOKE ALL ON FUNCTION inbox.%I(text[], text[], text[], text[], jsonb[], text[]) FROM %I',
                       'send_' || p_inbox, p_role);
    END IF;
    IF inbox.arrival_sequence(c) IS NOT NULL THEN
        EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM %I', inbox.arrival_sequence(c), p_role);
    END IF;
    FOREACH v_view IN ARRAY ARRAY[p_inbox || '_pending', p_inbox || '_dlq', p_inbox || '_stats', 'next_' || p_inbox] LOOP
        IF to_regclass(format('inbox.%I', v_view)) IS NOT NULL THEN
            EXECUTE format('REVOKE ALL ON inbox.%I FROM %I', v_view, p_role);
        END IF;
    END LOOP;
    FOR v_kind IN SELECT g.kind FROM inbox.inbox_grants g WHERE g.inbox_name = p_inbox AND g.role_name = p_role LOOP
        PERFORM inbox.grant_inbox_privileges(p_inbox, p_role, v_kind);
    END LOOP;
    RETURN true;
END;
$$;

-- The GRANT statements that recreate the privileges others hold on some relations of schema inbox
-- (owner's own privileges left out). rebuild_inbox_objects drops and recreates the views: it saves
-- their grants with this and runs them again, so hand-made grants on the views survive too.
CREATE OR REPLACE FUNCTION inbox.relation_grants(p_relations text[])
RETURNS text[]
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(format('GRANT %s ON inbox.%I TO %s%s', a.privilege_type, r.relname,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END,
               CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)), '{}')
    FROM pg_class r
    JOIN pg_namespace n ON n.oid = r.relnamespace AND n.nspname = 'inbox'
    CROSS JOIN LATERAL aclexplode(r.relacl) a
    WHERE r.relname = ANY (p_relations) AND a.grantee <> r.relowner
$$;

-- Runs saved GRANT statements (relation_grants) whose relation exists again.
CREATE OR REPLACE FUNCTION inbox.restore_grants(p_grants text[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_grant text;
BEGIN
    FOREACH v_grant IN ARRAY coalesce(p_grants, '{}') LOOP
        BEGIN
            EXECUTE v_grant;
        EXCEPTION WHEN undefined_table OR undefined_object THEN
            NULL;  -- the view is gone for good (ordering disabled) or the grantee was dropped
        END;
    END LOOP;
END;
$$;

-- Rows of the coordination tables are changed only by roles that may record outcomes in the
-- inbox's table (consumers of that inbox, and its owner), so a consumer of one inbox cannot take
-- or block another inbox's leases, or forge or remove its workers in the registry the operator
-- views read. Everybody with SELECT reads every row.
-- The test is written into the policy, not called as a function: a function pinned to a
-- search_path is never inlined, and its per-row call (the GUC switch) cost ~46 us per row, about a
-- millisecond for the lease guard of every claim in the automatic mode. A policy's expression is
-- bound when it is created (under install.sql's search_path), so nothing can shadow it later.
DO $$
DECLARE
    v_table text;
    v_check text;
BEGIN
    FOREACH v_table IN ARRAY ARRAY['inbox_workers', 'inbox_partition_leases', 'inbox_worker_registry'] LOOP
        v_check := format('EXISTS (SELECT 1 FROM inbox.inbox_config c WHERE c.inbox_name = %I.inbox_name'
                          ' AND has_any_column_privilege(format(''%%I.%%I'', c.table_schema, c.table_name), ''UPDATE''))',
                          v_table);
        EXECUTE format('ALTER TABLE inbox.%I ENABLE ROW LEVEL SECURITY', v_table);
        EXECUTE format('DROP POLICY IF EXISTS read_all ON inbox.%I', v_table);
        EXECUTE format('CREATE POLICY read_all ON inbox.%I FOR SELECT USING (true)', v_table);
        EXECUTE format('DROP POLICY IF EXISTS consumers_write ON inbox.%I', v_table);
        EXECUTE format('CREATE POLICY consumers_write ON inbox.%1$I FOR ALL USING (%2$s) WITH CHECK (%2$s)',
                       v_table, v_check);
    END LOOP;
END;
$$;
-- The per-row function of earlier versions.
DROP FUNCTION IF EXISTS inbox.may_coordinate(text);

-- The catalog likewise: everybody with SELECT reads every inbox's row, but a role updates (and
-- locks, which takes the same policy) only the rows of the inboxes whose table it may update, so a
-- consumer of one inbox can neither move another inbox's retention watermark nor hold its row.
ALTER TABLE inbox.inbox_config ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read_all ON inbox.inbox_config;
CREATE POLICY read_all ON inbox.inbox_config FOR SELECT USING (true);
DROP POLICY IF EXISTS updated_by_its_writers ON inbox.inbox_config;
CREATE POLICY updated_by_its_writers ON inbox.inbox_config FOR UPDATE
    USING (has_any_column_privilege(format('%I.%I', table_schema, table_name), 'UPDATE'))
    WITH CHECK (has_any_column_privilege(format('%I.%I', table_schema, table_name), 'UPDATE'));

-- The audit trail names the rows, groups and errors operators acted on, so a role given one inbox
-- (inbox.grant_inbox ... 'operator' or 'reader') reads the rows of the inboxes whose table it may
-- read, not those of the others. Members of the group roles inbox_operator and inbox_reader, which
-- get every inbox, read every row, those of dropped inboxes too. Written only by the owner (through
-- the SECURITY DEFINER inbox.log_operator_action), whom row security does not restrict. The group
-- test is uncorrelated (computed once per query); the per-inbox one reads the catalog row.
ALTER TABLE inbox.operator_log ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS read_granted_inboxes ON inbox.operator_log;
-- Bound when created, under this script's search_path (see the coordination tables' policies).
CREATE POLICY read_granted_inboxes ON inbox.operator_log FOR SELECT USING (
    EXISTS (SELECT 1 FROM pg_roles r
            WHERE r.rolname IN ('inbox_operator', 'inbox_reader') AND pg_has_role(r.oid, 'USAGE'))
    OR EXISTS (SELECT 1 FROM inbox.inbox_config c
               WHERE c.inbox_name = operator_log.inbox_name
                 AND has_table_privilege(format('%I.%I', c.table_schema, c.table_name), 'SELECT')));

-- The schema-wide privileges of the group roles and of the roles of inbox.grant_inbox (again on
-- every install: tables and functions added by an upgrade need them too). The per-inbox ones follow
-- in rebuild_inboxes.sql, for every inbox.
DO $$
DECLARE
    v_role text;
    v_kind text;
BEGIN
    FOR v_role, v_kind IN
        SELECT inbox.group_role(k), k FROM pg_catalog.unnest(ARRAY['producer', 'consumer', 'operator', 'reader']) AS k
        UNION
        SELECT g.role_name, g.kind FROM inbox.inbox_grants g
    LOOP
        IF pg_catalog.to_regrole(pg_catalog.quote_ident(v_role)) IS NOT NULL THEN
            PERFORM inbox.grant_schema_privileges(v_role, v_kind);
        END IF;
    END LOOP;
END;
$$;
