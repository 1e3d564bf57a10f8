-- The catalog's functions: the version of the SQL API and the audit log's writer. The catalog's
-- tables are made by the steps (steps/), which have run when these definitions are applied.

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

-- The definitions below belong to the steps up to this one (the highest in steps/; a test keeps
-- the two equal). A database whose ledger has a later step was installed by a newer release, whose
-- functions these would replace by older ones: refused before anything is replaced.
DO $$
DECLARE
    v_installed integer := (SELECT max(s.step) FROM inbox.schema_steps s);
BEGIN
    IF v_installed > 6 THEN
        RAISE EXCEPTION 'the inbox SQL API in this database has schema version %, newer than these files (6)', v_installed
            USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'install the newer release''s SQL';
    END IF;
END;
$$;

-- The version of the SQL API in this database: the highest step of its ledger (inbox.schema_steps).
-- Release 0.1.0 recorded none (it counts as 1); 2 is the first with a ledger. An inbox's derived
-- objects record the version that generated them (inbox_config.objects_version); rebuild_inboxes.sql
-- regenerates those of every inbox that is behind.
CREATE OR REPLACE FUNCTION inbox.schema_version()
RETURNS integer
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT max(s.step) FROM inbox.schema_steps s
$$;

-- Writes one audit row. Arguments larger than 8 kB (a replay of 40,000 event ids) are kept as
-- their first 8 kB, marked truncated, so the log stays small.
-- Only the audited functions write the log: they run as the schema's owner (SECURITY DEFINER:
-- the operator actions, inbox.acted_on_by_caller) or only its owner may call them (create_inbox,
-- the enable_* functions, grant_inbox); EXECUTE is nobody else's, so no role can write "alice
-- replayed 42 rows" itself.
-- What is recorded and how far it is trusted (docs/security.md, "The audit log"): role_name is the
-- session's login role (session_user), which PostgreSQL authenticated; actor is the transaction
-- setting inbox.actor, which the console and the Actuator endpoint set to the user they
-- authenticated, and which any session of the role could set to anything: it is the role's claim.
CREATE OR REPLACE FUNCTION inbox.log_operator_action(p_action text, p_inbox text, p_arguments jsonb, p_rows bigint)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO inbox.operator_log (role_name, actor, application_name, client_addr, action, inbox_name,
                                    arguments, rows_affected)
    VALUES (session_user,
            left(nullif(current_setting('inbox.actor', true), ''), 200),
            left(nullif(current_setting('application_name', true), ''), 200),
            inet_client_addr(),
            p_action, p_inbox,
            CASE WHEN length(coalesce(p_arguments, '{}')::text) > 8192
                 THEN jsonb_build_object('truncated', true, 'text', left(p_arguments::text, 8192))
                 ELSE coalesce(p_arguments, '{}') END,
            p_rows);
END;
$$;
REVOKE EXECUTE ON FUNCTION inbox.log_operator_action(text, text, jsonb, bigint) FROM PUBLIC;
